"""Cue-triggered injection: a few strongly relevant facts on the prompts that need them.

Public API (the prompt hook calls it; the signature is stable)::

    inject_for_prompt(store, session_id, prompt, *, previous_assistant=None,
                      tool_output=None, cwd=None, config=GateConfig(),
                      project=None, trace_path=None) -> Injection

The element format (``<mem-context …>``, escaping), the session state, the
store's ``context.*`` configuration and the trace file are shared with the
session-start block and live in :mod:`objstore.retrieval.context`.

Cue-triggered injection (:func:`inject_for_prompt`), precision first
    1. **Cues**: the words of the prompt (weight 1), of the previous
       assistant message (``GateConfig.assistant_weight``) and of the tool
       output (``tool_weight``, last ``MAX_CUE_CHARS`` characters), minus
       ``<mem-context>`` elements, stop words and generic prompt words
       (:data:`GENERIC_WORDS`), stemmed like the index.
    2. **Candidates**: BM25 over the facts of the scopes that apply (user,
       global, the current project; any version: a hit on an older version
       stands for its key, whose *current* value is what may be injected,
       and the old value's words count as evidence, so a prompt that relies
       on a superseded value gets the current one), and over the user and
       assistant turns of *other* sessions of the project.
    3. **Gate**: each candidate's evidence is ``Σ w(t) · nidf(t)`` over the
       cue terms ``t`` it contains (a cue stem of ``PREFIX_MIN``+ letters
       also matches a longer word of the value it starts: ``postgr`` ->
       ``postgresql``), where ``w`` is the cue's weight (× ``key_weight``
       for a word of a fact's key name) and ``nidf`` the term's BM25 idf over
       facts and turns divided by its maximum ``ln(2N + 2)``, with
       ``PRIOR_DOCS`` documents that lack the word added to N (so 1.0 is a
       word no document has, scores do not grow with the store, and a young
       store does not make every word look common).  Words of
       :data:`COMMON_WORDS` (everyday software vocabulary) count at most
       ``common_nidf``.  A fact with ``min_terms`` or more matched terms
       needs ``evidence ≥ fact_threshold``; with fewer, one of them must be
       a rare word of the value (nidf ≥ ``rare_nidf``, from the prompt), or
       the prompt a question whose words are the key's name and nothing
       else ("which editor do I use?" for ``user/editor``).  A
       turn needs ``turn_min_terms`` terms, ``turn_threshold`` and must
       cover ``turn_coverage`` of the prompt's cue weight; the terms a turn
       contains are read from the index's postings of its whole text
       (``SearchIndex.held_words``), and only a turn to be shown is read.
    4. **Limits**: at most ``max_facts`` facts (the facts of one name,
       ``injectscope.one_name_order``, count as one) and ``max_turns`` turn
       passages, best evidence first (a turn that only asks, stating no
       value, after the others: ``timeline.only_asks``), within ``budget_tokens`` (default
       600, ``context.prompt_budget``); a candidate
       under ``relative`` times the best one's evidence is dropped.  A fact
       version already injected in this session (or in its start block)
       is not injected again; a dormant fact (:func:`is_dormant`) never.
       One name's facts keep recall's order (``keyrank`` rule 5,
       ``injectscope.one_name_order``): the project's value before the
       person's ``user/`` default before ``global/``, the person's before
       an agent's; one that goes before an injected fact is injected with
       it, first, or the later one is not injected.
       Nothing at all is injected when nothing clears the gate.  An injected
       fact's use is recorded (:func:`record_use`: its decay clock restarts);
       the session-start block does not count as use, or nothing in it could
       ever go dormant.

    5. **Current facts with stale turns**: a turn passage that states an
       older value of a key in scope (:func:`stale_for_facts`) is injected
       only with that key's current value, added (or moved) just above it
       within the budget (unless this session already had it); else the
       passage is dropped.  Facts and passages carry their dates.

    The returned :class:`Injection` carries a trace record (one JSON line
    per prompt: cues, injected and rejected candidates each with evidence,
    matched terms and the reason) that :func:`write_trace` appends to a file
    (``MEM_TRACE``; the command layer reads that variable), with the
    tokens the injection cost and the budget; :func:`session_start_block`
    writes one for the session start.  The trace holds keys, ids, scores
    and cue words, never stored values.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from objstore.core.errors import CorruptObject, MemError, ReadOnlyStore, StoreLocked
from objstore.core.objects import Fact, Turn
from objstore.core.record import Frozen, Record, fields, set_fields
from objstore.core.store import FACT_WAIT_S, Store, now_ms
from objstore.core.text import strip_mem_context
from objstore.memory.scope import namespace_rank, namespace_weight, project_aliases, visibility
from objstore.memory.served import hider

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from objstore.memory.tombstones import Hider
from objstore.retrieval.keyrank import key_name, names_key
from objstore.retrieval.querywords import ASKING_WORDS, GENERIC_WORDS, held_terms
from objstore.retrieval.context import (
    CHARS_PER_TOKEN, DEFAULT_PROMPT_BUDGET, NOTE, TAG, escape_text, estimate_tokens, fact_line, is_dormant,
    load_state, record_use, save_state, state_path, store_context_config, write_trace,
)
from objstore.retrieval.injecttime import (person_first, stale_for_facts,  # noqa: F401  (re-exported)
                                           with_current_facts, with_later_turns)
from objstore.retrieval.injectscope import one_name_order
from objstore.retrieval.shownbefore import note_candidates, with_shown_notes

MAX_CUE_CHARS = 4000
PRIOR_DOCS = 100  # see _nidf
PREFIX_MIN = 5  # a cue stem this long also matches a longer word it starts (postgr -> postgresql)


#: Everyday software words: a store's own statistics cannot tell yet that they
#: are common while it holds few turns, so their weight is capped at
#: ``GateConfig.common_nidf`` (they still count, but never carry a match alone).
COMMON_WORDS = frozenset("""
access account action api app application args argument array async auth await backend bash
branch browser buffer bug build button bytes cache call case cd change channel char check class
clean cli client clone close cloud cluster code column command commit compile component config
connect connection console container content context copy count cpu create cron css csv data
database date db debug default delete dependency deploy dev diff directory disk doc docker
document domain download dump edit editor email empty endpoint engine entry env envs
error event exception exit export feature fetch field file filter flag folder font form format
frontend function git github go hash header helper history home host hook html http https icon
id image import index info input install instance int integration interface issue item java
javascript job json key label language layout lib library limit line link lint linux list load
local lock log logger login logic loop main map memory merge message method migration mode model
module name network node null number object option order output package page param parse parser
password patch path performance pip plugin port post process production program project prompt
property pull push python query queue read readme record release remote repo request response
rest result return role root route row rule run runtime schema scope script sdk search secret
security server service session setting setup shell size sort source sql ssh stack start state
status step storage store string style support table tag task template terminal test text
thread time timeout token tool type ui unit update upload url user value variable version view
web window worker yaml
""".split())


class GateConfig(Frozen):
    """The precision-first gate of :func:`inject_for_prompt` (module docstring).

    Defaults were tuned on ``eval/injection.json`` (``mem eval injection``).

    Attributes:
        max_facts, max_turns: most facts / turn passages per prompt.
        budget_tokens: most estimated tokens of the injected element
            (default 600; the store's ``context.prompt_budget`` when
            :func:`inject_for_prompt` is given no config).
        fact_threshold: evidence a fact with ``min_terms``+ matches needs.
        min_terms: matched terms below which a rare word is required.
        rare_nidf: nidf from which a single word of the value is enough.
        key_weight: factor for cue words that are in a fact's key name.
        common_nidf: cap of the nidf of :data:`COMMON_WORDS`.
        relative: share of the best candidate's evidence a second one needs.
        turn_threshold, turn_min_terms, turn_coverage: the turn gate.
        assistant_weight, tool_weight: cue weights of the weaker sources.
        candidates: BM25 hits looked at per source and kind.
        turns: also consider turns of other sessions.
        turn_roles: roles of those turns (tool output is never injected).
        turn_chars: characters of a turn passage.
        dormant: the dormancy predicate (a dormant fact is never injected).
    """

    __slots__ = ("max_facts", "max_turns", "budget_tokens", "fact_threshold", "min_terms", "rare_nidf", "key_weight",
                 "common_nidf", "relative", "turn_threshold", "turn_min_terms", "turn_coverage", "assistant_weight",
                 "tool_weight", "candidates", "turns", "turn_roles", "turn_chars", "dormant")

    def __init__(self, max_facts: int = 2, max_turns: int = 1, budget_tokens: int = DEFAULT_PROMPT_BUDGET,
                 fact_threshold: float = 0.8, min_terms: int = 2, rare_nidf: float = 0.75, key_weight: float = 1.5,
                 common_nidf: float = 0.35, relative: float = 0.5, turn_threshold: float = 2.0,
                 turn_min_terms: int = 3, turn_coverage: float = 0.6, assistant_weight: float = 0.5,
                 tool_weight: float = 0.3, candidates: int = 10, turns: bool = True,
                 turn_roles: tuple[str, ...] = ("user", "assistant"), turn_chars: int = 300,
                 dormant: Callable[[Fact], bool] = is_dormant) -> None:
        set_fields(self, max_facts, max_turns, budget_tokens, fact_threshold, min_terms, rare_nidf, key_weight,
                   common_nidf, relative, turn_threshold, turn_min_terms, turn_coverage, assistant_weight,
                   tool_weight, candidates, turns, turn_roles, turn_chars, dormant)

    def to_json(self) -> dict:
        """The numeric settings (for the trace)."""
        return {k: v for k in fields(self) if isinstance(v := getattr(self, k), (int, float, bool, tuple))}


class Candidate(Record):
    """One candidate of the gate, injected or rejected.

    Attributes:
        kind: ``fact`` or ``turn``.  id: object id.  ref: key or session id.
        evidence: the gate score (see the module docstring).
        matched: the cue terms the candidate contains.
        reason: why it was rejected ("" when injected).
        bm25: the search score that made it a candidate.
        tokens: estimated tokens of its rendered line.
    """

    __slots__ = ("kind", "id", "ref", "evidence", "matched", "reason", "bm25", "tokens", "line")

    def __init__(self, kind: str, id: str, ref: str, evidence: float = 0.0, matched: list[str] | None = None,
                 reason: str = "", bm25: float = 0.0, tokens: int = 0, line: str = "") -> None:
        set_fields(self, kind, id, ref, evidence, [] if matched is None else matched, reason, bm25, tokens, line)

    def to_json(self) -> dict:
        d = {"kind": self.kind, "id": self.id, "key" if self.kind == "fact" else "session": self.ref,
             "evidence": round(self.evidence, 4), "bm25": round(self.bm25, 4), "matched": self.matched}
        if self.reason:
            d["reason"] = self.reason
        else:
            d["tokens"] = self.tokens
        return d


class Injection(Record):
    """What :func:`inject_for_prompt` decided.

    Attributes:
        text: the ``<mem-context>`` element to add to the prompt, or "".
        injected: accepted candidates, in the order shown.
        rejected: every other candidate, with its reason.
        cues: cue terms per source (``prompt``, ``previous_assistant``,
            ``tool_output``).
        trace: the JSON-ready trace record (one line of the trace file).
    """

    __slots__ = ("text", "injected", "rejected", "cues", "trace")

    def __init__(self, text: str, injected: list[Candidate], rejected: list[Candidate], cues: dict[str, list[str]],
                 trace: dict) -> None:
        set_fields(self, text, injected, rejected, cues, trace)

    @property
    def ids(self) -> list[str]:
        """Ids of the injected objects."""
        return [c.id for c in self.injected]


def extract_cues(text: str | None, limit: int = MAX_CUE_CHARS, tail: bool = False) -> list[tuple[str, str]]:
    """Cues of a text: ``(word, stem)`` for its words (``searchindex.tokenize``)
    minus ``<mem-context>`` elements, stop words, :data:`GENERIC_WORDS` and
    one-character tokens, in first-occurrence order, one per stem.  Only the
    first (``tail``: last) ``limit`` characters are read."""
    from objstore.index.searchindex import QUERY_STOPWORDS, index_terms, tokenize  # deferred: tantivy
    if not text:
        return []
    text = strip_mem_context(text)   # our own injections never become cues
    text = text[-limit:] if tail else text[:limit]
    words = [w for w in tokenize(text)
             if len(w) > 1 and w not in QUERY_STOPWORDS and w not in GENERIC_WORDS]
    if not words:
        return []
    words = list(dict.fromkeys(words))
    out: dict[str, str] = {}
    for w, st in zip(words, index_terms(" ".join(words))):
        if st not in out and st not in GENERIC_WORDS:
            out[st] = w
    return [(w, st) for st, w in out.items()]


def _nidf(df: int, n: int) -> float:
    """BM25's idf of a word in ``df`` of ``n`` documents over its maximum
    (df = 0), with ``PRIOR_DOCS`` documents without the word added, so a
    young store does not make every word look common."""
    n = max(n, 0) + PRIOR_DOCS
    df = min(df, n)
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5)) / math.log(2.0 * n + 2.0)


#: a fact candidate's reason when its key's current value was lost to damage
#: (``objstore.memory.lost``): the injection carries the warning instead
LOST_REASON = "current value lost to damage"


def inject_for_prompt(store: Store, session_id: str, prompt: str, *, previous_assistant: str | None = None,
                      tool_output: str | None = None, cwd: str | None = None,
                      config: GateConfig | None = None, project: str | None = None,
                      trace_path: str | Path | None = None, namespace: str | None = None,
                      defer_session_index: bool = False) -> Injection:
    """Decide what stored memory to add to a prompt (module docstring).

    Args:
        session_id: the agent's session (its own turns are never injected;
            the session state remembers what was injected).
        prompt: the user's prompt.
        previous_assistant, tool_output: weaker cue sources.
        cwd: the agent's working directory (the project scope).
        config: :class:`GateConfig` (None: the defaults, with the store's
            ``context.prompt_budget``).
        project: overrides the cwd's project.
        trace_path: when given, the trace record is appended there.
        namespace: the reader's namespace (a sub-agent's prompt): what it
            may not read is never injected, a descendant's evidence is
            demoted (``objstore.memory.scope``).  None: every namespace.
        defer_session_index: the prompt is being stored by another process
            with ``index=False`` (the prompt hook's capture child): an index
            journal that holds only ``session_id``'s turns is left to the
            next writer instead of being replayed before the gate (which
            would put a tantivy commit in the agent's wait; a session's own
            turns are never injected).  A journal holding anything else is
            replayed as always.
    Returns:
        :class:`Injection` (``text`` "" when nothing cleared the gate).
        A store whose index cannot be read gives an empty injection whose
        trace says why (``decision`` ``error``, ``error``, ``error_type``:
        the exception's class name); other MemErrors propagate.
    """
    from objstore.core.redact import remove_credentials  # deferred: compiles the rules
    t0 = time.perf_counter()
    # a credential in the prompt is never a cue: it would reach the trace and the index queries
    prompt, previous_assistant, tool_output = (
        remove_credentials(t) if t else t for t in (prompt, previous_assistant, tool_output))
    if config is None:
        config = GateConfig(budget_tokens=store_context_config(store).prompt_budget)
    projects = project_aliases(cwd, override=project, store_root=store.root)
    primary = projects[0] if projects else ""
    sources = {"prompt": (extract_cues(prompt), 1.0),
               "previous_assistant": (extract_cues(previous_assistant), config.assistant_weight),
               "tool_output": (extract_cues(tool_output, tail=True), config.tool_weight)}
    cues = {k: [w for w, _st in v[0]] for k, v in sources.items()}
    weight: dict[str, float] = {}  # stem -> weight of its strongest source
    word_of: dict[str, str] = {}
    for terms, w in sources.values():
        for word, st in terms:
            word_of.setdefault(st, word)
            weight[st] = max(weight.get(st, 0.0), w)
    inj = Injection("", [], [], cues, {})
    error = None
    if weight:
        try:
            _gate(store, session_id, sources, weight, word_of, projects, config, inj, namespace,
                  defer_session_index, prompt or "")
        except MemError as e:  # an unreadable index: inject nothing, say why
            error, error_type = str(e), type(e).__name__
            inj.injected, inj.text = [], ""
    inj.trace = {
        "time": now_ms(), "event": "UserPromptSubmit", "session": session_id, "project": primary,
        "cues": cues, "injected": [c.to_json() for c in inj.injected],
        "rejected": [c.to_json() for c in inj.rejected],
        "decision": "inject" if inj.text else ("error" if error else "nothing cleared the gate" if weight
                                                  else "no cues"),
        "tokens": estimate_tokens(inj.text) if inj.text else 0, "budget": config.budget_tokens,
        "gate": config.to_json(), "elapsed_ms": round((time.perf_counter() - t0) * 1000, 2),
        **inj.trace,  # what the gate added (use_recorded)
    }
    if error:
        inj.trace["error"], inj.trace["error_type"] = error, error_type
    if trace_path:
        write_trace(trace_path, inj.trace)
    return inj


def _shown_turn(store: Store, oid: str, c: Candidate) -> Turn | None:
    """The turn ``oid`` of candidate ``c``, or None with ``c.reason`` set:
    its object is missing, or it was forgotten or holds no text."""
    try:
        t = store.get(oid, Turn)
    except MemError:
        c.reason = "turn object missing"
        return None
    if getattr(t, "forgotten", 0) or not t.text.strip():
        c.reason = "forgotten"
        return None
    return t


def _only_session_pending(store: Store, session_id: str) -> bool:
    """Whether the index journal holds nothing but turns of ``session_id``
    (or nothing at all)."""
    if store.journal.is_empty():
        return True
    j = store.journal.read()
    return not (j.facts or j.forgets or j.turn_forgets or j.queue or j.deletes) and set(j.sessions) <= {session_id}


def _gate(store: Store, session_id: str, sources: dict, weight: dict[str, float], word_of: dict[str, str],
          projects: tuple[str, ...], config: GateConfig, inj: Injection, namespace: str | None = None,
          defer_session_index: bool = False, prompt: str = "") -> None:
    from objstore.index.searchindex import index_terms  # deferred: tantivy
    idx = store.index
    if not (defer_session_index and _only_session_pending(store, session_id)):
        store.try_recover(wait=FACT_WAIT_S)   # a hook's budget: no long wait for another's fact commit
    n_docs, df_words = idx.term_stats([word_of[t] for t in weight], ("fact", "turn"))
    nidf = {t: _nidf(df_words.get(word_of[t], 0), n_docs) for t in weight}
    for t in nidf:
        if word_of[t] in COMMON_WORDS or t in COMMON_WORDS:
            nidf[t] = min(nidf[t], config.common_nidf)
    # candidates: facts by every cue source, turns of other sessions by the prompt
    fact_hits: dict[str, float] = {}
    old_hits: dict[str, set[str]] = {}  # key -> ids of matching versions that are not current
    for terms, _w in sources.values():
        if not terms:
            continue
        for h in idx.search(" ".join(w for w, _st in terms), limit=config.candidates, kinds=("fact", "history"),
                            projects=[*projects, ""], stopwords=False):
            fact_hits[h.ref] = max(fact_hits.get(h.ref, 0.0), h.score)
            if h.kind == "history":
                old_hits.setdefault(h.ref, set()).add(h.id)
    cands: list[Candidate] = []
    words = prompt.split(None, 1)
    asked = {st for _w, st in sources["prompt"][0]} \
        if words and (prompt.rstrip().endswith("?") or words[0].lower() in ASKING_WORDS) else set()
    showable: dict[str, tuple[Candidate, Fact]] = {}  # facts that may be shown (for stale turns)
    turn_text: dict[str, tuple[str, int]] = {}
    asking: set[str] = set()   # turns that only ask (timeline rule 7)
    hide: Hider | None | bool = False
    for key, bm25 in sorted(fact_hits.items(), key=lambda kv: -kv[1]):
        from objstore.memory.facts import current_version, visible  # defer: the facts module, for a fact the gate reads (not on a prompt without one)
        c = Candidate("fact", "", key, bm25=bm25)
        cands.append(c)
        try:
            cur = current_version(store, key, namespace)
        except CorruptObject:   # one damaged ref costs its key, not the prompt's whole injection (fresh43 F9)
            c.reason = "damaged ref"
            continue
        if cur is None:
            # the warning is for a key the prompt names (keyrank's rule), not for every weak candidate
            c.reason = LOST_REASON if f"lost facts/{key}" in store.damaged and names_key(key, weight) \
                else "no current version"
            continue
        c.id, f = cur
        if not visible(f):
            c.reason = "secret or forgotten"
            continue
        rank = visibility(key, f.namespace, projects, namespace)
        if rank is None:
            c.reason = "another project's fact" if visibility(key, "", projects, None) is None \
                else "another namespace's fact"
            continue
        if not config.dormant(f):
            showable[key] = (c, f)
        key_terms = set(index_terms(key_name(key)))
        body = f.body[:20_000]
        for old in sorted(old_hits.get(key, ())):  # a prompt about an old value gets the current one
            if old != c.id:
                try:
                    body += "\n" + store.get(old, Fact).body[:20_000]
                except MemError:
                    pass
        body_terms = set(index_terms(body))
        in_body = {t for t in weight if t in body_terms
                   or (len(t) >= PREFIX_MIN and any(u.startswith(t) for u in body_terms))}
        matched = [t for t in weight if t in key_terms or t in in_body]
        c.matched = [word_of[t] for t in matched]
        c.evidence = sum(weight[t] * nidf[t] * (config.key_weight if t in key_terms else 1.0) for t in matched)
        c.evidence *= namespace_weight(rank)
        rare = [t for t in matched if t in in_body and weight[t] >= 1.0 and nidf[t] >= config.rare_nidf]
        if config.dormant(f):
            c.reason = "dormant"
        elif len(matched) >= config.min_terms and c.evidence < config.fact_threshold:
            c.reason = f"evidence {c.evidence:.2f} below the threshold {config.fact_threshold}"
        elif len(matched) < config.min_terms and not rare and not (asked and set(matched) == key_terms == asked):
            c.reason = (f"{len(matched)} matched term(s), fewer than {config.min_terms}, "
                        f"and no rare word of the value (nidf >= {config.rare_nidf})")
        else:
            c.line = fact_line(f, limit=config.budget_tokens * CHARS_PER_TOKEN // 2)
    prompt_terms = [st for _w, st in sources["prompt"][0]]
    if config.turns and config.max_turns > 0 and prompt_terms:
        total_w = sum(weight[t] * nidf[t] for t in prompt_terms) or 1.0
        turn_hits = idx.search(" ".join(w for w, _st in sources["prompt"][0]), limit=config.candidates,
                               kinds=("turn",), projects=list(projects) or None, exclude_refs=[session_id],
                               roles=config.turn_roles, stopwords=False)
        # the prompt's words each candidate holds, from the index: a turn is read only to be shown
        held = idx.held_words([(h.ref, h.seq, h.id) for h in turn_hits], [word_of[x] for x in prompt_terms])
        for h in turn_hits:
            c = Candidate("turn", h.id, h.ref, bm25=h.score)
            cands.append(c)
            rank = namespace_rank(namespace, h.ref)
            if rank is None or (namespace and h.ref == namespace):
                c.reason = "a namespace this session may not read" if rank is None else "this sub-agent's own turn"
                continue
            t = None
            if (got := held.get(h.id)) is not None:
                matched = [x for x in prompt_terms if word_of[x] in got]
            else:
                if (t := _shown_turn(store, h.id, c)) is None:
                    continue
                terms = held_terms(t.text)
                matched = [x for x in prompt_terms if x in terms]
            c.matched = [word_of[x] for x in matched]
            c.evidence = sum(weight[x] * nidf[x] for x in matched) * namespace_weight(rank)
            cover = sum(weight[x] * nidf[x] for x in matched) / total_w
            if len(matched) < config.turn_min_terms:
                c.reason = f"{len(matched)} matched term(s), fewer than {config.turn_min_terms}"
            elif c.evidence < config.turn_threshold:
                c.reason = f"evidence {c.evidence:.2f} below the turn threshold {config.turn_threshold}"
            elif cover < config.turn_coverage:
                c.reason = f"covers {cover:.0%} of the prompt's cues, under {config.turn_coverage:.0%}"
            elif t is None and (t := _shown_turn(store, h.id, c)) is None:
                continue
            else:
                turn_text[h.id] = (t.text, t.timestamp)
                from objstore.retrieval.timeline import only_asks, values_of  # defer: the time rules, for a shown turn
                if not values_of(t.text, {*matched, *c.matched}) and only_asks(t.text, matched):
                    asking.add(h.id)   # a question asked before, no answer: after the turns that may answer
                from objstore.index.searchindex import make_snippet  # deferred: tantivy
                when = time.strftime("%Y-%m-%d", time.gmtime(t.timestamp / 1000)) if t.timestamp else "?"
                if hide is False:   # the forgotten --match texts, read at the first passage shown
                    hide = hider(store)
                snippet = escape_text(make_snippet(t.text, " ".join(c.matched), config.turn_chars, hide))
                from objstore.memory.provenance import turn_author  # defer: a turn passage shown
                who = "parent_agent" if turn_author(t) == "parent_agent" else t.role  # not the person's words
                who += ", untrusted" if t.untrusted else ""  # written after its session read outside content
                c.line = (f"- earlier session {escape_text(t.session)} ({when}, {who}"
                          f"{', ' + escape_text(t.project) if t.project else ''}): {snippet}")
    # limits, in order of evidence
    state = load_state(store, session_id)
    note_candidates(store, cands, state)   # a key shown at another value: its note counts against the budget
    already = state.get("injected") or {}
    used = 0
    n_facts = n_turns = 0
    seen_text: set[str] = set()
    budget = config.budget_tokens
    open_tag = f'<{TAG} kind="prompt" note="{NOTE}">\n'
    close_tag = f"</{TAG}>\n"
    frame = estimate_tokens(open_tag + close_tag)
    lines = []
    best = {k: max((c.evidence for c in cands if c.kind == k and not c.reason), default=0.0) for k in ("fact", "turn")}
    lead = person_first(showable)   # the person's fact before an agent's (timeline rule 11)
    # one name's facts in recall's order (keyrank rule 5): the project's before the person's default
    order = one_name_order(store, cands, showable, projects, namespace, config.dormant,
                           config.budget_tokens * CHARS_PER_TOKEN // 2, lead, Candidate)
    shown: set[str] = set()
    for c in sorted(cands, key=lambda c: (c.id in asking, -lead.get((c.kind, c.ref), c.evidence),
                                          order.get(c.ref, (0,))[0] if c.kind == "fact" else 0,
                                          (c.kind, c.ref) not in lead, c.kind, c.ref)):
        if c.reason:
            inj.rejected.append(c)
            continue
        before = [k for k in order.get(c.ref, (0, []))[1] if k not in shown] if c.kind == "fact" else []
        # a name's facts count as one against the limit: the later ones come with the first (test29b Q7)
        later = c.kind == "fact" and order.get(c.ref, (0,))[0] > 0
        if before:
            c.reason = f"{before[0]} goes first (one name: the narrower scope, the person's) and is not in this block"
        elif lead.get((c.kind, c.ref), c.evidence) < config.relative * best[c.kind]:
            c.reason = f"evidence {c.evidence:.2f} under {config.relative:.0%} of the best {c.kind}'s {best[c.kind]:.2f}"
        elif c.id in already:
            c.reason = "already injected in this session"
        elif (c.kind == "fact" and not later and n_facts >= config.max_facts) or \
                (c.kind == "turn" and n_turns >= config.max_turns):
            c.reason = f"over the limit of {config.max_facts if c.kind == 'fact' else config.max_turns} {c.kind}s"
        elif c.line in seen_text:
            c.reason = "same text as an injected item"
        else:
            c.tokens = estimate_tokens(c.line + "\n")
            if frame + used + c.tokens > budget:
                c.reason = f"over the token budget ({budget})"
        if c.reason:
            inj.rejected.append(c)
            continue
        used += c.tokens
        seen_text.add(c.line)
        lines.append(c.line)
        inj.injected.append(c)
        if c.kind == "fact":
            n_facts += 0 if later else 1
            shown.add(c.ref)
        else:
            n_turns += 1
    lines = with_current_facts(store, inj, lines, showable, turn_text, config, frame, used, set(already), prompt)
    lines = with_later_turns(store, session_id, inj, lines, showable, config, frame, prompt,
                             projects[0] if projects else "")
    # a key this session was shown at another value says so on its line (test35 T15)
    served = [(c.ref, c.id) for c in inj.injected if c.kind == "fact"]
    lines = with_shown_notes(store, lines, served, state)
    lost = sorted({c.ref for c in cands if c.reason == LOST_REASON})
    if lost:   # the prompt asks about a key whose value is lost: the agent is told, as recall's reader is
        inj.trace["lost_keys"] = lost
        from objstore.memory.lost import lost_keys_warning  # defer: with the facts module (a lost key only)
        lines.append(f"- warning: {escape_text(lost_keys_warning(lost) or '')}")
    if not lines:
        return
    inj.text = open_tag + "\n".join(lines) + "\n" + close_tag
    now = now_ms()
    state["injected"] = {**already, **{c.id: now for c in inj.injected}}
    state["shown"] = {**(state.get("shown") or {}), **dict(served)}   # each key's last shown id (shownbefore)
    state["prompts"] = int(state.get("prompts") or 0) + 1
    save_state(store, session_id, state)
    keys = [c.ref for c in inj.injected if c.kind == "fact"]
    if keys and state_path(store, session_id) is not None:  # a preview without a session is not a use
        inj.trace["use_recorded"] = record_use(store, keys)
