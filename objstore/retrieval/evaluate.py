"""Evaluations of retrieval and delivery: supersession, LoCoMo, injection.

Every evaluation builds its own store in a directory the caller gives (the
command uses a temporary directory), never the user's store, and returns a
report dataclass; nothing is printed.

``supersession`` (:func:`eval_supersession`)
    A scenario file (JSON, format below) lists keys, each with values written
    in order (some with an older ``valid_from``: backfills), and questions
    whose answer is the key's current value.  Two retrievers answer each
    question with their top fact:

    * **rule**: ``objstore.retrieval.recall`` (current versions in the index, every hit
      resolved through the key's ref by the supersession rule);
    * **similarity**: BM25 over *every* version of every key, as a plain
      retriever that stores each write as a document would (ties broken by
      index order, no notion of time).

    Hit@1: the top answer is the key's current value.  Stale@1: the top
    answer is an older value of that key.  The rule must give Stale@1 = 0.

``locomo`` (:func:`eval_locomo`)
    LoCoMo (Maharana et al., ACL 2024; ``locomo10.json``): every dialogue
    turn is stored as a turn (one project per conversation, one session per
    LoCoMo session, speaker A as ``user`` and B as ``assistant``), each QA's
    evidence turns are the gold, and ``recall`` answers the question scoped
    to the conversation's project.  Recall@k = |gold in top k| / |gold|;
    MRR@10 = 1 / rank of the first gold in the top 10 (0 if none); both
    averaged over the QAs with at least one resolvable evidence id (1,982 of
    1,986; ids normalised with ``D:?(\\d+):0*(\\d+)``).  With ``steps`` the
    pipeline is built up one step at a time to show what each bought.

``injection`` (:func:`eval_injection`)
    A labelled prompt file (format below): facts and past turns to store, and
    prompts each labelled with the fact keys that should be injected (most
    with none).  Each prompt goes through ``context.inject_for_prompt`` in a
    fresh session; reported are recall and precision of the injected facts
    and the share of prompts with a false injection.

Scenario formats (JSON; times are ISO 8601 dates or date-times, UTC):

supersession::

    {"keys": [{"key": "project/acme/db", "kind": "project",
               "writes": [{"value": "MySQL 5.7", "valid_from": "2024-01-10"},
                          {"value": "Postgres 16", "valid_from": "2025-03-01"},
                          {"value": "Postgres 15", "valid_from": "2024-09-01"}],
               "questions": ["which database does acme run?"]}]}

    Writes happen in list order; the last write above is a backfill.

injection::

    {"project": "acme",
     "facts": [{"key": "project/acme/db", "value": "...", "kind": "project",
                "pinned": false}],
     "turns": [{"session": "old-1", "role": "user", "text": "..."}],
     "prompts": [{"prompt": "...", "expect": ["project/acme/db"],
                  "previous_assistant": "...", "project": "acme"}]}
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.errors import InvalidInput
from objstore.core.objects import Turn
from objstore.core.refs import validate_key
from objstore.core.store import Store
from objstore.memory.facts import fact_doc, remember, versions
from objstore.memory.opening import open_store
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn
from objstore.retrieval.context import render_context
from objstore.retrieval.inject import GateConfig, inject_for_prompt
from objstore.retrieval.recall import RecallOptions, recall

_EVID_RE = re.compile(r"D:?(\d+):0*(\d+)")
_SESSION_KEY_RE = re.compile(r"session_(\d+)\Z")


# -- shared helpers -------------------------------------------------------------

def load_json(path: str | Path) -> object:
    """Read a JSON file.  Raises FileNotFoundError, InvalidInput (not JSON)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except IsADirectoryError:
        raise InvalidInput(f"{p} is a directory, not a JSON file") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise InvalidInput(f"{p} is not a JSON file: {e}") from None


def parse_when(value, what: str) -> int:
    """ISO 8601 date / date-time (UTC unless an offset is given) or an int of
    ms -> ms since epoch.  Raises InvalidInput."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise InvalidInput(f"{what}: want an ISO 8601 time, got {value!r}")
    try:
        d = _dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{what}: {value!r} is not an ISO 8601 time") from None
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.timezone.utc)
    return int(d.timestamp() * 1000)


def write_sessions(store: Store, sessions: Iterable[tuple[str, list[Turn]]]) -> int:
    """Store whole sessions of turns built by the caller (``seq`` and
    ``parent`` are set here, in list order) with the one turn appender (in
    pack mode: one pack), publish their refs and index them.  For evaluation
    stores: a session must not exist yet.  Returns the number of turns."""
    with store.lock("eval"):
        app = TurnAppender(store, command="eval", pack=True)
        try:
            for sid, turns in sessions:
                for t in turns:
                    app.add(CapturedTurn(sid, t.source, t.role, t.text, t.timestamp, t.cwd, t.project),
                            harness=t.harness)
            app.publish()
        finally:
            app.close()
    return app.written


def _fraction(a: float, b: float) -> float:
    return a / b if b else 0.0


# -- LoCoMo ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LocomoConfig:
    """One configuration of the LoCoMo run (a row of the step table).

    Attributes:
        name: what the step adds.
        analyzer: index analyzer, ``words`` or ``stem``.
        speaker: prefix each turn's text with its speaker's name.
        caption: append the shared image's caption (``blip_caption``) and
            search query (``query``) to the turn's text.
        opts: the :class:`objstore.retrieval.recall.RecallOptions` of the step.
    """

    name: str
    analyzer: str
    speaker: bool
    caption: bool
    opts: object


def locomo_steps() -> list[LocomoConfig]:
    """The pipeline built up one step at a time; the last is the default."""
    plain = RecallOptions(stopwords=False, neighbours=0.0, neighbours2=0.0, session_boost=0.0, recency=0.0,
                          supersede=False, scope_idf=False, dates=0.0, coverage=0.0, follow=0, base_forms=False,
                          measure=0.0, gate=False)
    timed = RecallOptions().replace(scope_idf=False, dates=0.0, coverage=0.0, follow=0, base_forms=False,
                                    measure=0.0, gate=False)
    return [
        LocomoConfig("BM25, mem_words analyzer, turn text only", "words", False, False, plain),
        LocomoConfig("+ speaker name and image caption in the turn text", "words", True, True, plain),
        LocomoConfig("+ English stemming (Snowball)", "stem", True, True, plain),
        LocomoConfig("+ query stop words dropped", "stem", True, True,
                     plain.replace(stopwords=True)),
        LocomoConfig("+ neighbouring turns (0.3 of a hit's score to seq +-1)", "stem", True, True,
                     plain.replace(stopwords=True, neighbours=0.3)),
        LocomoConfig("+ session evidence (0.1 x the session's summed scores)", "stem", True, True,
                     plain.replace(stopwords=True, neighbours=0.3, session_boost=0.1)),
        LocomoConfig("+ wider turn window (0.4 to seq +-1, 0.2 to seq +-2)", "stem", True, True,
                     plain.replace(stopwords=True, neighbours=0.4, neighbours2=0.2, session_boost=0.1)),
        LocomoConfig("+ time: recency factor, supersession of passages", "stem", True, True, timed),
        LocomoConfig("+ IDF counted inside the project scope", "stem", True, True,
                     timed.replace(scope_idf=True)),
        LocomoConfig("+ dates named in the question (that span's turns searched, x2)", "stem", True, True,
                     timed.replace(scope_idf=True, dates=RecallOptions().dates)),
        LocomoConfig("+ coverage (score x share of the question's IDF mass the turn holds)", "stem", True, True,
                     timed.replace(scope_idf=True, dates=RecallOptions().dates, coverage=RecallOptions().coverage)),
        LocomoConfig("+ follow the first hit, agent nouns as verbs, measure bonus, content gate = default", "stem", True, True,
                     RecallOptions()),
    ]


@dataclass
class Scores:
    """Recall@5, Recall@10 and MRR@10 over ``n`` questions."""

    n: int = 0
    r5: float = 0.0
    r10: float = 0.0
    mrr10: float = 0.0

    def add(self, ranked: list[str], gold: set[str]) -> None:
        self.n += 1
        self.r5 += len(gold & set(ranked[:5])) / len(gold)
        self.r10 += len(gold & set(ranked[:10])) / len(gold)
        self.mrr10 += next((1.0 / (i + 1) for i, x in enumerate(ranked[:10]) if x in gold), 0.0)

    def to_json(self) -> dict:
        """Averages rounded to 3 decimals."""
        return {"n": self.n, "recall@5": round(_fraction(self.r5, self.n), 3),
                "recall@10": round(_fraction(self.r10, self.n), 3),
                "mrr@10": round(_fraction(self.mrr10, self.n), 3)}


@dataclass
class LocomoRow:
    """Scores of one configuration, overall and per LoCoMo category."""

    name: str
    overall: Scores
    by_category: dict[int, Scores]
    seconds: float

    def to_json(self) -> dict:
        return {"step": self.name, **self.overall.to_json(),
                "by_category": {str(k): v.to_json() for k, v in sorted(self.by_category.items())},
                "seconds": round(self.seconds, 2)}


@dataclass
class LocomoReport:
    """Rows of :func:`eval_locomo` (the last is the default pipeline)."""

    conversations: int
    turns: int
    questions: int
    rows: list[LocomoRow]

    def to_json(self) -> dict:
        return {"conversations": self.conversations, "turns": self.turns, "questions": self.questions,
                "rows": [r.to_json() for r in self.rows]}


LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def _locomo_time(text: str) -> int:
    """``"1:56 pm on 8 May, 2023"`` -> ms since epoch (0 if unreadable)."""
    try:
        d = _dt.datetime.strptime(" ".join(str(text).replace(",", " ").split()), "%I:%M %p on %d %B %Y")
    except ValueError:
        return 0
    return int(d.replace(tzinfo=_dt.timezone.utc).timestamp() * 1000)


def _locomo_samples(data) -> list[dict]:
    if not isinstance(data, list) or not data or not all(isinstance(s, dict) for s in data):
        raise InvalidInput("not a LoCoMo file: want a JSON list of samples")
    for s in data:
        if not isinstance(s.get("conversation"), dict) or not isinstance(s.get("qa"), list):
            raise InvalidInput("not a LoCoMo file: a sample lacks 'conversation' or 'qa'")
    return data


def _locomo_text(t: dict, speaker: bool, caption: bool) -> str:
    text = str(t.get("text") or "")
    if speaker and t.get("speaker"):
        text = f"{t['speaker']}: {text}"
    if caption:
        extra = [str(t[k]) for k in ("blip_caption", "query") if t.get(k)]
        if extra:
            text += " [image: " + "; ".join(extra) + "]"
    return text


def _locomo_sessions(sample: dict, speaker: bool, caption: bool) -> list[tuple[str, list[Turn]]]:
    conv = sample["conversation"]
    project = str(sample.get("sample_id") or "conv")
    out = []
    nums = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY_RE.match(k)) and isinstance(conv[k], list))
    a = conv.get("speaker_a")
    for n in nums:
        start = _locomo_time(conv.get(f"session_{n}_date_time", ""))
        turns = []
        for i, t in enumerate(conv[f"session_{n}"]):
            if not isinstance(t, dict) or not t.get("dia_id"):
                continue
            text = _locomo_text(t, speaker, caption)
            if not text.strip():
                continue
            turns.append(Turn(session="x", seq=0, role="user" if t.get("speaker") == a else "assistant",
                              text=text, timestamp=start + i * 1000 if start else 0, harness="locomo",
                              cwd="", project=project, source=str(t["dia_id"]), parent=None))
        if turns:
            out.append((f"locomo-{project}-s{n}", turns))
    return out


def locomo_gold(sample: dict) -> list[tuple[dict, set[str]]]:
    """``(qa, gold dia_ids)`` for each QA of a sample with at least one
    evidence id that resolves to a turn."""
    ids = {str(t["dia_id"]) for k, v in sample["conversation"].items()
           if _SESSION_KEY_RE.match(k) and isinstance(v, list) for t in v if isinstance(t, dict) and t.get("dia_id")}
    out = []
    for qa in sample["qa"]:
        if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
            continue
        gold = set()
        for e in qa.get("evidence") or []:
            for m in _EVID_RE.finditer(str(e)):
                d = f"D{int(m.group(1))}:{int(m.group(2))}"
                if d in ids:
                    gold.add(d)
        if gold:
            out.append((qa, gold))
    return out


def eval_locomo(path: str | Path, workdir: str | Path, *, steps: bool = True,
                limit_conversations: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> LocomoReport:
    """Run LoCoMo retrieval (see the module docstring).

    Args:
        path: ``locomo10.json``.
        workdir: an empty or missing directory for the evaluation stores.
        steps: run every step of :func:`locomo_steps`; else only the default.
        limit_conversations: use only the first N conversations (tests).
        progress: ``progress(done, total)`` over all questions of all steps.
    Raises:
        FileNotFoundError, InvalidInput (not a LoCoMo file).
    """
    import time

    samples = _locomo_samples(load_json(path))[:limit_conversations]
    configs = locomo_steps() if steps else locomo_steps()[-1:]
    golds = [(s, locomo_gold(s)) for s in samples]
    total_q = sum(len(g) for _, g in golds)
    done = 0
    stores: dict[tuple, Store] = {}
    rows = []
    nturns = 0
    work = Path(workdir)
    try:
        for cfg in configs:
            sk = (cfg.analyzer, cfg.speaker, cfg.caption)
            if sk not in stores:
                st = open_store(work / f"store-{len(stores)}", create=True,
                                analyzer=cfg.analyzer)  # this index format for the step
                nturns = 0
                for s in samples:
                    nturns += write_sessions(st, _locomo_sessions(s, cfg.speaker, cfg.caption))
                stores[sk] = st
            st = stores[sk]
            t0 = time.perf_counter()
            overall, cats = Scores(), defaultdict(Scores)
            for s, qas in golds:
                project = str(s.get("sample_id") or "conv")
                for qa, gold in qas:
                    res = recall(st, [qa["question"]], what="turns", projects=(project,), limit=10,
                                 opts=cfg.opts.replace(snippet=40))
                    ranked = [h.source or "" for h in res.hits]
                    overall.add(ranked, gold)
                    cats[int(qa.get("category") or 0)].add(ranked, gold)
                    done += 1
                    if progress:
                        progress(done, total_q * len(configs))
            rows.append(LocomoRow(cfg.name, overall, dict(cats), time.perf_counter() - t0))
    finally:
        for st in stores.values():
            st.close()
    return LocomoReport(len(samples), nturns, total_q, rows)


# -- supersession ---------------------------------------------------------------

@dataclass
class ModeScores:
    """Top-1 outcomes of one retriever over the questions.

    ``hit``: the top answer is the current value; ``stale``: an older value
    of the asked key; ``other``: anything else or nothing."""

    hit: int = 0
    stale: int = 0
    other: int = 0

    @property
    def n(self) -> int:
        return self.hit + self.stale + self.other

    def to_json(self) -> dict:
        return {"hit@1": round(_fraction(self.hit, self.n), 3), "stale@1": round(_fraction(self.stale, self.n), 3),
                "hits": self.hit, "stale": self.stale, "other": self.other}


@dataclass
class SupersessionReport:
    """What :func:`eval_supersession` measured.

    Attributes:
        keys, writes, backfills, questions: the scenario's size (a backfill
            is a write whose valid_from is older than an earlier write's).
        rule: the supersession rule (``recall``).
        similarity: BM25 over every version.
        stale_cases: ``(question, key)`` where the rule served an old value
            (must be empty).
    """

    keys: int
    writes: int
    backfills: int
    questions: int
    rule: ModeScores
    similarity: ModeScores
    stale_cases: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"keys": self.keys, "writes": self.writes, "backfills": self.backfills,
                "questions": self.questions, "rule": self.rule.to_json(),
                "similarity": self.similarity.to_json(),
                "stale_cases": [{"question": q, "key": k} for q, k in self.stale_cases]}


def _supersession_keys(data) -> list[dict]:
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list) or not data["keys"]:
        raise InvalidInput("not a supersession scenario file: want {\"keys\": [...]}")
    out = []
    for i, k in enumerate(data["keys"]):
        where = f"keys[{i}]"
        if not isinstance(k, dict):
            raise InvalidInput(f"{where}: want an object")
        key = validate_key(str(k.get("key", "")))
        writes = k.get("writes")
        qs = k.get("questions")
        if not isinstance(writes, list) or not writes or not isinstance(qs, list) or not qs:
            raise InvalidInput(f"{where} ({key}): want non-empty 'writes' and 'questions'")
        ws = []
        for j, w in enumerate(writes):
            if not isinstance(w, dict) or not isinstance(w.get("value"), str) or not w["value"].strip():
                raise InvalidInput(f"{where}.writes[{j}]: want {{\"value\": text, \"valid_from\": time}}")
            ws.append((w["value"], parse_when(w.get("valid_from", 0), f"{where}.writes[{j}].valid_from")))
        if not all(isinstance(q, str) and q.strip() for q in qs):
            raise InvalidInput(f"{where}.questions: want non-empty strings")
        out.append({"key": key, "kind": k.get("kind"), "writes": ws, "questions": qs})
    return out


def eval_supersession(path: str | Path, workdir: str | Path) -> SupersessionReport:
    """Run the supersession scenario file ``path`` (module docstring) in a
    new store under ``workdir``.  Raises FileNotFoundError, InvalidInput."""
    from objstore.index.searchindex import IndexDoc, SearchIndex  # deferred: tantivy
    keys = _supersession_keys(load_json(path))
    work = Path(workdir)
    rule, sim = ModeScores(), ModeScores()
    rep = SupersessionReport(len(keys), sum(len(k["writes"]) for k in keys), 0,
                             sum(len(k["questions"]) for k in keys), rule, sim)
    with open_store(work / "store", create=True) as store:
        for k in keys:
            latest = None
            for value, valid_from in k["writes"]:
                if latest is not None and valid_from < latest:
                    rep.backfills += 1
                latest = valid_from if latest is None else max(latest, valid_from)
                remember(store, k["key"], value, kind=k["kind"], valid_from=valid_from, command="eval")
        sim_docs = []
        truth: dict[str, tuple[str, set[str]]] = {}
        body_of: dict[str, str] = {}
        for k in keys:
            chain = versions(store, k["key"])
            cur = max(((v.fact.valid_from, v.fact.version), v) for v in chain)[1]  # the rule, restated
            truth[k["key"]] = (cur.fact.body, {v.fact.body for v in chain} - {cur.fact.body})
            for v in chain:
                body_of[v.id] = v.fact.body
                d = fact_doc(v.id, v.fact)
                sim_docs.append(IndexDoc(id=d.id, kind="fact", ref=d.ref, time=0, project="", role=d.role,
                                         text=d.text))
        sim_index = SearchIndex(work / "similarity-index")
        sim_index.add(sim_docs)

        def score(mode: ModeScores, key: str, answer: str | None, q: str) -> bool:
            current, old = truth[key]
            if answer == current:
                mode.hit += 1
            elif answer in old:
                mode.stale += 1
                return True
            else:
                mode.other += 1
            return False

        for k in keys:
            for q in k["questions"]:
                res = recall(store, [q], what="facts", projects=None, limit=1)
                top = res.hits[0].text if res.hits else None
                if score(rule, k["key"], top, q):
                    rep.stale_cases.append((q, k["key"]))
                hits = sim_index.search(q, limit=1, kinds=("fact",))
                score(sim, k["key"], body_of.get(hits[0].id) if hits else None, q)
        sim_index.close()
    return rep


# -- injection ------------------------------------------------------------------

@dataclass
class InjectionReport:
    """What :func:`eval_injection` measured for the default gate.

    ``recall``: expected facts injected / expected facts.  ``precision``:
    injected facts that were expected or allowed / injected facts.
    ``false_injection_share``: prompts where a fact outside ``expect`` and
    ``allow`` was injected, or a turn passage where none was expected /
    all prompts.  ``tokens``: estimated tokens of the session-start block
    of the scenario's project and of each prompt's injection (mean over all
    prompts, over the prompts that got one, and the largest).  ``rows``:
    one dict per prompt.
    """

    prompts: int
    needing: int
    facts: int
    turns: int
    expected: int = 0
    found: int = 0
    injected: int = 0
    correct: int = 0
    false_prompts: int = 0
    turn_injections: int = 0
    turn_expected_hits: int = 0
    prompt_tokens: list[int] = field(default_factory=list)
    session_tokens: int = 0
    rows: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"prompts": self.prompts, "needing": self.needing, "facts": self.facts, "turns": self.turns,
                "recall": round(_fraction(self.found, self.expected), 3),
                "precision": round(_fraction(self.correct, self.injected), 3),
                "false_injection_share": round(_fraction(self.false_prompts, self.prompts), 3),
                "injected_facts": self.injected, "expected_facts": self.expected,
                "turn_injections": self.turn_injections, "turn_expected_hits": self.turn_expected_hits,
                "tokens": {"session_start": self.session_tokens,
                           "per_prompt_mean": round(_fraction(sum(self.prompt_tokens), len(self.prompt_tokens)), 1),
                           "per_injecting_prompt_mean": round(_fraction(
                               sum(self.prompt_tokens), sum(1 for t in self.prompt_tokens if t)), 1),
                           "per_prompt_max": max(self.prompt_tokens, default=0)},
                "rows": self.rows}


def _str_list(v, where: str) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise InvalidInput(f"{where}: want a list of strings")
    return v


def eval_injection(path: str | Path, workdir: str | Path, *, config=None) -> InjectionReport:
    """Run the labelled prompt file ``path`` (module docstring) through
    ``context.inject_for_prompt`` with ``config`` (default: the default
    gate), each prompt in a new session, in a new store under ``workdir``.
    Raises FileNotFoundError, InvalidInput."""
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list) \
            or not isinstance(data.get("prompts"), list):
        raise InvalidInput("not an injection scenario file: want {\"facts\": [...], \"prompts\": [...]}")
    project = str(data.get("project") or "")
    config = config or GateConfig()
    turns_in = data.get("turns") or []
    rep = InjectionReport(len(data["prompts"]), 0, len(data["facts"]), len(turns_in))
    with open_store(Path(workdir) / "store", create=True) as store:
        for i, f in enumerate(data["facts"]):
            if not isinstance(f, dict) or not isinstance(f.get("value"), str):
                raise InvalidInput(f"facts[{i}]: want {{\"key\": ..., \"value\": ...}}")
            remember(store, validate_key(str(f.get("key", ""))), f["value"], kind=f.get("kind"),
                     pinned=bool(f.get("pinned", False)), command="eval")
        sessions: dict[str, list[Turn]] = {}
        for i, t in enumerate(turns_in):
            if not isinstance(t, dict) or not isinstance(t.get("text"), str):
                raise InvalidInput(f"turns[{i}]: want {{\"session\", \"role\", \"text\"}}")
            sessions.setdefault(str(t.get("session") or "past"), []).append(
                Turn(session="x", seq=0, role=str(t.get("role") or "user"), text=t["text"],
                     timestamp=1_700_000_000_000 + i * 60_000, harness="eval", cwd="",
                     project=str(t.get("project", project)), source=f"eval:{i}", parent=None))
        if sessions:
            write_sessions(store, sessions.items())
        rep.session_tokens = render_context(store, (project,) if project else ()).tokens
        for i, p in enumerate(data["prompts"]):
            if not isinstance(p, dict) or not isinstance(p.get("prompt"), str):
                raise InvalidInput(f"prompts[{i}]: want {{\"prompt\": text, \"expect\": [keys]}}")
            expect = set(_str_list(p.get("expect"), f"prompts[{i}].expect"))
            allow = set(_str_list(p.get("allow"), f"prompts[{i}].allow"))
            inj = inject_for_prompt(store, f"eval-prompt-{i}", p["prompt"],
                                    previous_assistant=p.get("previous_assistant"),
                                    tool_output=p.get("tool_output"), cwd=None,
                                    project=str(p.get("project", project)) or None, config=config)
            keys = [c.ref for c in inj.injected if c.kind == "fact"]
            turns = [c.ref for c in inj.injected if c.kind == "turn"]
            rep.needing += bool(expect)
            rep.expected += len(expect)
            rep.found += len(expect & set(keys))
            rep.injected += len(keys)
            rep.correct += len((expect | allow) & set(keys))
            false = bool(set(keys) - expect - allow) or (bool(turns) and not p.get("expect_turn"))
            rep.false_prompts += false
            rep.turn_injections += len(turns)
            rep.prompt_tokens.append(int(inj.trace.get("tokens") or 0))
            rep.turn_expected_hits += bool(turns) and bool(p.get("expect_turn"))
            rep.rows.append({"prompt": p["prompt"], "expect": sorted(expect), "injected": keys + turns,
                             "false": false, "missed": sorted(expect - set(keys)),
                             "rejected": [(c.ref, round(c.evidence, 2), c.reason) for c in inj.rejected][:6]})
    return rep


# -- knowledge update -------------------------------------------------------------

@dataclass
class KnowledgeUpdateReport:
    """What :func:`eval_knowledge_update` measured over ``questions``.

    Attributes:
        evidence5, evidence10: evidence sessions among the sessions of the
            first 5 / 10 recalled passages / evidence sessions, averaged.
        newest_first: questions whose newest evidence session ranks above
            every older evidence session (a missing one ranks last) / questions.
        stale1: questions whose first passage states an outdated value (holds
            an old value and not the current one) / questions.
        current1: questions whose first passage holds the current value.
        rows: one dict per question (ranked sessions, flags).
    """

    sessions: int
    turns: int
    questions: int
    evidence5: float = 0.0
    evidence10: float = 0.0
    newest_first: int = 0
    stale1: int = 0
    current1: int = 0
    seconds: float = 0.0
    rows: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        n = self.questions
        return {"sessions": self.sessions, "turns": self.turns, "questions": n,
                "evidence@5": round(_fraction(self.evidence5, n), 3),
                "evidence@10": round(_fraction(self.evidence10, n), 3),
                "newest_first": round(_fraction(self.newest_first, n), 3),
                "stale@1": round(_fraction(self.stale1, n), 3),
                "current@1": round(_fraction(self.current1, n), 3),
                "seconds": round(self.seconds, 2), "rows": self.rows}


def value_pattern(value: str) -> re.Pattern:
    """A case-insensitive pattern for ``value`` as a whole word (``16`` does
    not match ``160`` or ``3.16``)."""
    return re.compile(r"(?<![\w.])" + re.escape(value) + r"(?![\w]|\.\w)", re.I)


def _ku_scenario(data) -> tuple[list[dict], list[dict]]:
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), list) \
            or not isinstance(data.get("questions"), list) or not data["questions"]:
        raise InvalidInput("not a knowledge-update scenario file: want {\"sessions\": [...], \"questions\": [...]}")
    ids = set()
    for i, s in enumerate(data["sessions"]):
        if not isinstance(s, dict) or not isinstance(s.get("id"), str) or not isinstance(s.get("turns"), list):
            raise InvalidInput(f"sessions[{i}]: want {{\"id\", \"project\", \"time\", \"turns\": [...]}}")
        for j, t in enumerate(s["turns"]):
            if not isinstance(t, dict) or not isinstance(t.get("text"), str):
                raise InvalidInput(f"sessions[{i}].turns[{j}]: want {{\"role\", \"text\"}}")
        ids.add(s["id"])
    for i, q in enumerate(data["questions"]):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str) \
                or not isinstance(q.get("current"), str) or not _str_list(q.get("old"), f"questions[{i}].old") \
                or not set(_str_list(q.get("evidence"), f"questions[{i}].evidence")) <= ids \
                or not q["evidence"]:
            raise InvalidInput(f"questions[{i}]: want {{\"question\", \"project\", \"evidence\": [session ids], "
                               "\"current\": value, \"old\": [values]}}")
    return data["sessions"], data["questions"]


def eval_knowledge_update(path: str | Path, workdir: str | Path, *, limit: int = 10,
                          progress: Callable[[int, int], None] | None = None) -> KnowledgeUpdateReport:
    """Run a knowledge-update scenario file (``eval/knowledge_update.json``,
    written by ``eval/gen_knowledge_update.py``) in a new store under
    ``workdir``: every session is stored with its time, and each question
    goes through :func:`objstore.retrieval.recall.recall` (``what="all"``,
    scoped to the question's project), exactly as ``mem recall`` runs it.

    Format::

        {"sessions": [{"id": "billing-port-0", "project": "billing",
                       "time": "2025-03-01T10:00:00Z",
                       "turns": [{"role": "user", "text": "..."}]}],
         "questions": [{"question": "...", "project": "billing",
                        "evidence": ["billing-port-0", "billing-port-1"],
                        "current": "8443", "old": ["8080"]}]}

    ``evidence`` lists the sessions that stated a value, oldest first (the
    last holds ``current``); turns are one minute apart from the session's
    ``time``.  Metrics: :class:`KnowledgeUpdateReport`.
    Raises FileNotFoundError, InvalidInput.
    """
    import time as _time

    sessions, questions = _ku_scenario(load_json(path))
    start = {s["id"]: parse_when(s.get("time", 0), f"session {s['id']}.time") for s in sessions}
    built = []
    for s in sessions:
        t0 = start[s["id"]]
        built.append((s["id"], [Turn(session="x", seq=0, role=str(t.get("role") or "user"), text=t["text"],
                                     timestamp=t0 + i * 60_000, harness="eval", cwd="",
                                     project=str(s.get("project") or ""), source=f"{s['id']}:{i}", parent=None)
                                for i, t in enumerate(s["turns"])]))
    with open_store(Path(workdir) / "store", create=True) as store:
        nturns = write_sessions(store, built)
        rep = KnowledgeUpdateReport(len(sessions), nturns, len(questions))
        t_start = _time.perf_counter()
        for qi, q in enumerate(questions):
            project = str(q.get("project") or "")
            res = recall(store, [q["question"]], what="all", projects=(project,) if project else None, limit=limit)
            ranked = [h.session for h in res.hits if h.kind == "turn"]
            evid = list(q["evidence"])
            rep.evidence5 += len(set(evid) & set(ranked[:5])) / len(set(evid))
            rep.evidence10 += len(set(evid) & set(ranked[:10])) / len(set(evid))
            first = {s: ranked.index(s) if s in ranked else len(ranked) + 1 for s in evid}
            newest = max(evid, key=lambda s: start[s])
            nf = all(first[newest] < first[s] for s in evid if s != newest)
            rep.newest_first += nf
            top = ""
            if res.hits:
                h = res.hits[0]
                top = store.get(h.id, Turn).text if h.kind == "turn" else h.text
            cur = bool(value_pattern(q["current"]).search(top))
            stale = not cur and any(value_pattern(o).search(top) for o in q["old"])
            rep.stale1 += stale
            rep.current1 += cur
            rep.rows.append({"question": q["question"], "project": project, "evidence": evid,
                             "ranked": ranked[:10], "newest_first": nf, "stale@1": stale, "current@1": cur})
            if progress:
                progress(qi + 1, len(questions))
        rep.seconds = _time.perf_counter() - t_start
    return rep
