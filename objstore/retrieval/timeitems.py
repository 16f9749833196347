"""The items the time rule compares, read from their texts: one builder for
``mem recall`` and for the prompt hook.

The rule (:mod:`objstore.retrieval.timeline`) decides which passage states a
value that was changed later.  Recall (``objstore.retrieval.recall``) and
the prompt hook's check of a turn it injects against the current facts
(``objstore.retrieval.injecttime.stale_for_facts``) ask it the same question,
so both build its items here, from the same readings of their texts:

* values (``timeline.values_of``), a turn's with the question's words left
  out (they are the subject, not values; a fact keeps those its body
  states: "is the shop cache still on cache-1.internal" asks whether its
  value still holds, test28b Z9); a fact's older versions' values that the
  current one dropped (``Item.old_values``);
* content terms (stemmed, query stop words dropped), read only for an item
  that states a value or may be a question (``timeline.may_ask``: rule
  7), and
  the question's stems among them (``Item.matched``); whether the item
  holds a change word (``Item.cue``);
* the text the subjects of its values are read from
  (:mod:`objstore.retrieval.subjects`): a turn's text, a fact's
  :func:`fact_text`;
* word values a later passage or a fact's history says were replaced
  (:mod:`objstore.retrieval.wordchange`);
* the identifiers the question names that it holds, and the other
  identifiers it holds (``Item.ids``, ``Item.others``: rule 12).

A check built apart from this (the hook's was: no question, no text, so no
subjects) decides differently: a later value of a *sibling* ("the analytics
replica uses 5439") marked the primary's 5432 stale in the hook while
recall kept it (session 25, tl25).  A turn stamped in the future is read
as of an unknown time (:data:`FUTURE_SLACK_MS`).  No store, no I/O.
"""

from __future__ import annotations

import time as _time
from collections.abc import Sequence

from objstore.core.record import Record
from objstore.core.text import LazyPattern
from objstore.memory.provenance import is_subagent_session
from objstore.retrieval.querywords import question_terms, stop_stems, text_terms
from objstore.retrieval.timeline import UPDATE_CUES, Item, lower_words_of, may_ask, values_of
from objstore.retrieval.valueshape import identifiers
from objstore.retrieval.wordchange import user_word_changes, word_changes


class Said(Record):
    """One recalled passage or fact, as its reader has it.

    Attributes:
        text: a turn's text; a fact's :func:`fact_text`.
        time: ms since epoch (turn timestamp, fact ``valid_from``).
        project: the item's project (``""`` for none).
        kind: ``turn`` or ``fact``.
        relevance: the retrieval score (only ratios matter).
        old_bodies: a fact's older versions' bodies (empty for a turn).
        seq: a tie-breaker for items of one session at one time.
        role: a turn's role (``user``, ``assistant``, ``tool``); a fact's
            trust (``user_stated``, ``agent_observed``, …; ``""``: the
            person's), read as the role ``agent`` unless the person's.
        session: a turn's session (``""``: unknown; the exchange rule,
            ``restated.answer_to``, reads it with ``seq``).
    """

    __slots__ = ("text", "time", "project", "kind", "relevance", "old_bodies", "seq", "role", "session")

    def __init__(self, text: str, time: int, project: str, kind: str = "turn", relevance: float = 1.0,
                 old_bodies: Sequence[str] = (), seq: int = 0, role: str = "", session: str = "") -> None:
        # (a mutable record: attribute stores, ~15x cheaper than set_fields' slot setters)
        self.text, self.time, self.project, self.kind, self.relevance = text, time, project, kind, relevance
        self.old_bodies, self.seq, self.role, self.session = list(old_bodies), seq, role, session


def _role(s: Said) -> str:
    """The role the rule reads: a turn's, but ``parent_agent`` for a
    sub-agent session's ``user`` turn (its prompt, written by the parent
    agent: not the person's word, ``provenance.turn_author``); ``""`` for
    a fact, ``agent`` for one an agent wrote (``timeline`` rule 11)."""
    if s.kind != "turn":
        return "agent" if s.role not in ("", "user_stated") else ""
    return "parent_agent" if s.role == "user" and s.session and is_subagent_session(s.session) else s.role


def fact_text(key: str, body: str) -> str:
    """The text of a fact the rule reads: its key's words, a newline, its
    body ("project api db-port\\npostgres primary port is 5432")."""
    return key.replace("/", " ") + "\n" + body


#: a turn stamped more than this past now (ms) has no time the rule can trust (a skewed clock, an edited
#: transcript): read as unknown (0), so a version recorded after it was captured is the newer word (test27 V15)
FUTURE_SLACK_MS = 3_600_000


#: phrases that say a value is the one of late, as a change word does ("the shop db is on port 6543 these days",
#: test33 T20)
CHANGE_PHRASE_RE = LazyPattern(r"(?i)\b(?:these days|nowadays|as of (?:today|now)|from now on)\b")


def time_items(said: Sequence[Said], queries: Sequence[str], *,
               terms_cache: dict[str, frozenset[str]] | None = None,
               lower: set[str] | None = None,
               question: tuple[set[str], set[str]] | None = None,
               now: int | None = None, keep_named: bool = True) -> list[Item]:
    """The ``timeline.Item`` of each of ``said``, for the question
    ``queries`` (its phrasings), as the module docstring reads them.

    Args:
        said: the passages and facts, best first.
        queries: the question's phrasings (a prompt for the hook).
        terms_cache: text -> index terms, shared with the caller's other
            reads of the same texts (``querywords.text_terms``).
        lower: the words written in lower case in the texts
            (``timeline.lower_words_of``); None: read from ``said``.
        question: ``querywords.question_terms(queries)``, where the caller
            has it already.
        now: ms since epoch (None: the clock); a turn stamped more than
            :data:`FUTURE_SLACK_MS` after it gets time 0 (unknown): "later"
            than nothing (test27 V15).
        keep_named: ``queries`` is a question asked (recall's, the hook's
            prompt): a fact keeps the values its body states that it names
            (test28b Z9); False (``laterturns``' session block, whose
            question is the fact's own words): they are left out, as a
            turn's are.

    Returns one item per element of ``said``, in order.  No error is raised
    for any text.
    """
    stems, words = question if question is not None else question_terms(queries)
    stop = stop_stems()
    subject = words | stems
    if lower is None:
        lower = lower_words_of(s.text for s in said)
    future = (int(_time.time() * 1000) if now is None else now) + FUTURE_SLACK_MS
    asked = frozenset(identifiers(" ".join(queries)))   # rule 12: the identifiers the question names
    items = []
    for s in said:
        # a value a fact's body states stays its value whatever the question names: "is the shop cache still on
        # cache-1.internal" asks whether it still holds (test28b Z9); a turn's words the question names are its subject
        of = subject - values_of(s.text.split("\n", 1)[-1]).keys() if s.kind == "fact" and keep_named else subject
        vals = values_of(s.text, of, lower)
        old: set[str] = set()
        for body in s.old_bodies:
            old |= set(values_of(body, of, lower))
        old -= set(vals)
        # only items with values compare, and a question that may be answered (rule 7)
        every = text_terms(s.text, terms_cache) if vals or s.kind == "turn" and may_ask(s.text) else frozenset()
        terms = every - stop
        held = identifiers(s.text) if asked else set()
        items.append(Item(time=0 if s.time > future and s.kind == "turn" else s.time, project=s.project, values=vals, matched=stems & terms,
                          relevance=s.relevance, kind=s.kind, old_values=old, seq=s.seq, terms=terms,
                          cue=bool(every & UPDATE_CUES) or bool(vals and CHANGE_PHRASE_RE.search(s.text, 0, 4000)), role=_role(s), text=s.text,
                          session=s.session if s.kind == "turn" else "", ids=asked & held,
                          others=frozenset(held - asked)))
    items = word_changes(items, [s.old_bodies for s in said], subject, stems,   # words said replaced (T2)
                         lambda t: text_terms(t, terms_cache) - stop)
    return user_word_changes(items, lambda t: text_terms(t, terms_cache) - stop, stems)   # a user/ fact's (P13)
