"""What the prompt hook's block says of time (``objstore.retrieval.inject``,
whose gate picks the facts and passages first; kept apart from it, session
28, as ``inject.py`` neared the module size limit):

* :func:`stale_for_facts`: which facts a turn passage states an older
  value of, so that the passage is never injected without the current
  fact (:func:`with_current_facts`);
* :func:`with_later_turns`: a fact or passage whose value a later turn of
  the person says changed is injected with that turn just above it, and
  marked (``laterturns.later_turns``);
* :func:`person_first`: the person's fact goes before an agent's fact
  under another key that the prompt matches no better (rule 11).

All decide by the time rule (``objstore.retrieval.timeline``), as ``mem
recall`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

from objstore.core.errors import MemError
from objstore.core.objects import Fact, Turn
from objstore.core.store import Store
from objstore.memory.scope import key_project
from objstore.memory.served import hider
from objstore.core.lookalike import escape_lookalike
from objstore.retrieval.context import (CHARS_PER_TOKEN, LATER_MARK, UPDATED_MARK, escape_text, estimate_tokens,
                                        fact_line, later_turn_line)
from objstore.retrieval.querywords import question_terms

# the time rules (laterturns, timeitems, timeline and what they import) are imported where a fact or a
# passage is judged by them: a prompt that clears no candidate loads none of them (session 32, lat32)

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from objstore.memory.tombstones import Hider
# (Candidate, GateConfig, Injection: ``inject``'s, named in annotations only; inject imports this module)


def stale_for_facts(store: Store, text: str, when: int, facts: Sequence[tuple[str, Fact]],
                    prompt: str = "", memo: dict | None = None) -> list[str]:
    """The keys of ``facts`` (``(key, current version)``) whose current
    value a turn (``text`` said at ``when`` ms) contradicts with an older
    one, for the question ``prompt``: the time rule of
    ``objstore.retrieval.timeline`` on the turn and the fact, read as
    ``mem recall`` reads them (``objstore.retrieval.timeitems.time_items``:
    the question's words, the values' subjects, the fact's older versions),
    so that the hook and recall decide "updated later" alike.  The fact
    supersedes the turn where the turn holds a value of one of the key's
    older versions that the current one dropped, or where both hold a word
    of the question and the fact states a later value of a kind the turn
    states, of the same subject, not of a sibling ("the analytics replica
    uses 5439" does not make "the primary uses 5432" stale).

    ``memo``: a dict the caller keeps for one prompt and passes to each
    call for that prompt (empty at first), so the question's terms, the
    texts' terms and each fact's older versions are read once per prompt,
    not once per turn passage; ``None``: this call's own."""
    from objstore.retrieval.timeline import superseders, values_of  # defer: the time rules (module comment)
    from objstore.retrieval.timeitems import Said, fact_text, time_items  # defer: as above
    out: list[str] = []
    if not facts or not values_of(text):
        return out
    memo = {} if memo is None else memo
    if "question" not in memo:
        memo["question"] = question_terms([prompt])
    question = memo["question"]
    cache: dict[str, frozenset[str]] = memo.setdefault("terms", {})
    olds: dict[tuple[str, str | None], list[str]] = memo.setdefault("old", {})
    turn = Said(text, when, "", "turn")
    for key, f in facts:
        old = olds.get((key, f.parent))
        if old is None:
            old = olds[(key, f.parent)] = []
            from objstore.memory.facts import walk  # defer: a passage shown beside a fact
            try:
                for v in walk(store, f.parent):
                    if v.fact.body and not getattr(v.fact, "forgotten", 0) and \
                            (v.fact.valid_from, v.fact.version) < (f.valid_from, f.version):
                        old.append(v.fact.body)
            except MemError:
                pass
        fact = Said(fact_text(key, f.body), f.said_at, "", "fact", old_bodies=old)
        if superseders(time_items([turn, fact], [prompt], terms_cache=cache, question=question))[0]:
            out.append(key)
    return out


def with_later_turns(store: Store, session_id: str, inj: Injection, lines: list[str],
                      showable: dict[str, tuple[Candidate, Fact]], config: GateConfig, frame: int,
                      prompt: str, project: str = "") -> list[str]:
    """A fact or a passage whose value a later turn of the person says
    changed (``laterturns.later_turns``, for the question ``prompt``; the
    turns of this session are not read: the model has them) is never
    injected without that turn: the turn's passage
    (``context.later_turn_line``; one injected already is moved there) goes
    just above it, and its line is marked out of date
    (``context.LATER_MARK``), within the budget; else it is dropped.
    ``project``: the cwd's, whose turns a ``user/`` fact is checked
    against (``later_turns``).  Returns the lines."""
    facts = [c for c in inj.injected if c.kind == "fact" and c.ref in showable]
    passages: list[tuple[Candidate, Turn]] = []
    for c in inj.injected:
        if c.kind == "turn":
            try:
                passages.append((c, store.get(c.id, Turn)))
            except MemError:
                continue   # (read a moment ago to be shown: a store damaged since marks nothing)
    if not facts and not passages:
        return lines
    from objstore.retrieval.laterturns import later_turns  # defer: the time rules (module comment)
    later = later_turns(store, [showable[c.ref][1] for c in facts], prompt=prompt, skip_sessions=[session_id],
                        turns=[(c.id, t) for c, t in passages], project=project)
    hide: Hider | None | bool = False
    for c in facts + [c for c, _t in passages]:
        lt = later.get(c.ref if c.kind == "fact" else c.id)
        if lt is None or c not in inj.injected:
            continue
        for t in [t for t in inj.injected if t.kind == "turn" and t.id == lt.id]:   # shown in its new place
            inj.injected.remove(t)
            lines.remove(t.line)
        if hide is False:
            hide = hider(store)
        mine = fact_line(showable[c.ref][1], limit=config.budget_tokens * CHARS_PER_TOKEN // 2, later=True) \
            if c.kind == "fact" else c.line.replace("): ", f", {LATER_MARK}): ", 1)
        pair = (later_turn_line(lt, hide or None), mine)
        cost = estimate_tokens("\n".join(pair) + "\n")
        used = sum(x.tokens for x in inj.injected if x is not c)
        at = lines.index(c.line)
        if frame + used + cost <= config.budget_tokens:
            lines[at:at + 1] = list(pair)
            c.line, c.tokens = "\n".join(pair), cost
            inj.trace.setdefault("later_turns", []).append(
                {"key": c.ref, "turn": lt.id} if c.kind == "fact" else {"passage": c.id, "turn": lt.id})
        else:
            del lines[at]
            inj.injected.remove(c)
            c.reason = "a later turn says its value changed, and that turn does not fit the budget"
            inj.rejected.append(c)
    return lines


def with_current_facts(store: Store, inj: Injection, lines: list[str],
                        showable: dict[str, tuple[Candidate, Fact]], turn_text: dict[str, tuple[str, int]],
                        config: GateConfig, frame: int, used: int, already: set[str], prompt: str) -> list[str]:
    """A turn passage that states an older value of a key is never injected
    without that key's current value (:func:`stale_for_facts`, for the
    question ``prompt``): the fact is added just before the passage (within
    the budget; one injected with it is moved there), unless it was already
    injected earlier in this session, or else the passage is dropped."""
    memo: dict = {}   # the prompt's terms and the facts' older versions: read once for all passages
    facts = [(k, f) for k, (_fc, f) in showable.items()]
    for c in [c for c in inj.injected if c.kind == "turn"]:
        text, when = turn_text.get(c.id, ("", 0))
        keys = stale_for_facts(store, text, when, facts, prompt, memo)
        for key in keys:
            fc, f = showable[key]
            if fc in inj.injected:   # shown with it: above it (the gate's order is by evidence)
                if inj.injected.index(fc) > inj.injected.index(c):
                    inj.injected.remove(fc)
                    inj.injected.insert(inj.injected.index(c), fc)
                    lines.remove(fc.line)
                    lines.insert(lines.index(c.line), fc.line)
                continue
            if fc.id in already:  # shown earlier in this session
                continue
            line = fc.line or fact_line(f, limit=config.budget_tokens * CHARS_PER_TOKEN // 2)
            cost = estimate_tokens(line + "\n")
            if frame + used + cost <= config.budget_tokens:
                fc.line, fc.tokens, fc.reason = line, cost, ""
                if fc in inj.rejected:
                    inj.rejected.remove(fc)
                inj.injected.insert(inj.injected.index(c), fc)
                lines.insert(lines.index(c.line), line)
                used += cost
                inj.trace.setdefault("added_current_facts", []).append({"key": key, "for_turn": c.id})
            else:
                inj.injected.remove(c)
                lines.remove(c.line)
                c.reason = f"states an older value of {key}, whose current value does not fit the budget"
                inj.rejected.append(c)
                break
        else:
            if keys and c in inj.injected:
                _mark_updated(inj, lines, c, keys, frame, config)
    return lines


def _mark_updated(inj: Injection, lines: list[str], c, keys: list[str], frame: int, config: GateConfig) -> None:
    """Mark the passage ``c``, injected beside the current values of ``keys``
    that it states older values of, as ``mem recall`` marks it ("updated
    later", ``context.UPDATED_MARK``), within the budget (test35 T3: the
    agent read two values with nothing saying which is newer)."""
    named = escape_text(", ".join(escape_lookalike(k) for k in keys))
    line = c.line.replace("): ", f", {UPDATED_MARK.format(keys=named)}): ", 1)
    cost = estimate_tokens(line + "\n")
    used = sum(x.tokens for x in inj.injected if x is not c)
    if line != c.line and frame + used + cost <= config.budget_tokens and c.line in lines:
        lines[lines.index(c.line)] = line
        c.line, c.tokens = line, cost


def person_first(facts: dict[str, tuple[Candidate, Fact]]) -> dict[tuple[str, str], float]:
    """The hook's side of the time rule's rule 11 (``timeline``, test27b
    X2): the person's fact before an agent's fact under another key on the
    same prompt ("shop database port: 6543" written by an agent beside the
    person's "The shop database is Postgres on port 5432"; the agent's key
    words weigh more, and with two facts a prompt an agent's near keys could
    keep the person's out).

    Args:
        facts: the gate's facts that may be shown, ``{key: (candidate,
            current version)}``.

    Returns ``{("fact", key): evidence}`` for each fact of the person
    (trust ``user_stated``, not rejected) that holds every word an agent's
    fact of its project matched (any other trust, not rejected), where the
    two state a value of one kind (``timeline.values_of``) and the agent's
    evidence is as high or higher: the agent's evidence, which the gate
    sorts and judges the person's fact by (it goes first on a tie)."""
    agents = [(c, f) for c, f in facts.values() if f.trust != "user_stated" and not c.reason and c.matched]
    out: dict[tuple[str, str], float] = {}
    if not agents:
        return out
    from objstore.retrieval.timeline import values_of  # defer: the time rules (module comment)

    def kinds(f: Fact) -> set[str]:
        return {"name" if t == "initial" else t for t in values_of(f.body).values()}
    for key, (c, f) in facts.items():
        if f.trust != "user_stated" or c.reason:
            continue
        mine, project = set(c.matched), key_project(key)
        for ac, af in agents:
            if ac.evidence >= out.get(("fact", key), c.evidence) and key_project(af.key) == project \
                    and set(ac.matched) <= mine and kinds(f) & kinds(af):
                out[("fact", key)] = ac.evidence
    return out
