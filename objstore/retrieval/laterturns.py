"""A fact a later turn says has changed: the check the prompt hook and the
session-start block make of the facts they serve.

``mem remember project/billing/staging-db "staging database on port 5432"``,
then, days later, in a session of that project the person says "Heads up:
the staging database moved to port 6543 this morning, 5432 is gone."  The
fact's value is still 5432: a fact changes only by a new version (``mem
remember``, or a person accepting a review item), never because a turn or
a score says so.  But a block that serves 5432 as *the* current value,
with no word of the later turn, is wrong to the reader.  So each served
fact of a project is checked (:func:`later_turns`): the person's turns of
that project recorded after the fact's version are searched for the fact's
words (and the prompt's, in the hook), and the time rule decides
(``objstore.retrieval.timeline``, rule 8, the same rule ``mem recall``
applies to the facts and turns it found): the turn holds a change word,
states (does not ask) a value of a kind the fact states, one the fact does
not hold and newer than the fact's, of the same subject and attribute
(``subjects.compare``; a sibling's value, "the analytics replica moved to
6544", never counts).  A turn that merely names the subject, asks about it
or repeats the old value does not mark the fact.

The caller marks the fact with the turn (its date, session, and its words
up to :data:`SNIPPET_CHARS`): the session-start block on the fact's line,
the hook with the turn's passage put before the fact.  The reader (the
model, the person) then knows the value may be stale and where it was
said; to supersede it the person records the new value (``mem remember``).

Cost: one index search (turns of one project, role ``user``, after the
fact's time, at most :data:`TURNS_READ` hits) and at most that many turns
read per fact checked; only facts of a project whose value holds a value
(``timeline.values_of``) are checked, at most :data:`FACTS_CHECKED` of
them a call.
"""

from __future__ import annotations

from collections.abc import Sequence

from objstore.core.errors import MemError
from objstore.core.objects import Fact, Turn
from objstore.core.record import Frozen, set_fields
from objstore.core.store import Store
from objstore.memory.scope import key_project
from objstore.retrieval.timeitems import Said, fact_text, time_items
from objstore.retrieval.timeline import relations, values_of

#: the person's later turns of a fact's project read per fact, at most
TURNS_READ = 3
#: facts checked in one call, at most (a session block lists a few dozen)
FACTS_CHECKED = 24
#: characters of the turn's text a mark quotes
SNIPPET_CHARS = 160


class LaterTurn(Frozen):
    """A turn said after a fact's version that changes its value.

    Attributes:
        key: the fact's key.  id: the turn's object id.
        session, seq: where it was said.  time: its timestamp (ms).
        text: its text (whole; the caller cuts and hides what it shows).
    """

    __slots__ = ("key", "id", "session", "seq", "time", "text")

    def __init__(self, key: str, id: str, session: str, seq: int, time: int, text: str) -> None:
        set_fields(self, key, id, session, seq, time, text)


def later_turns(store: Store, facts: Sequence[Fact], *, prompt: str = "",
                skip_sessions: Sequence[str] = ()) -> dict[str, LaterTurn]:
    """For each of ``facts`` (current versions) whose value a later turn of
    the person changes (module docstring), the newest such turn:
    ``{key: LaterTurn}``.

    Args:
        facts: the facts served, best first; the first
            :data:`FACTS_CHECKED` of a project whose body states a value
            are checked.
        prompt: the question being answered (the hook's prompt): its words
            join the fact's in the search and count as the question's in
            the rule; "" (the session block): the fact's own words are the
            question.
        skip_sessions: sessions whose turns are not read (the session being
            served: its turns are in the model's context already).

    Never raises for a damaged store: an unreadable index or turn leaves
    the fact unmarked.
    """
    out: dict[str, LaterTurn] = {}
    n = 0
    for f in facts:
        project = key_project(f.key) or ""
        if not project or n >= FACTS_CHECKED or not f.body.strip():
            continue
        vals = values_of(f.body)
        if not vals:
            continue
        n += 1
        when = max(f.valid_from, f.recorded_at)
        text = fact_text(f.key, f.body)
        # the question: the prompt's words, else the fact's own less its values (values are never subject)
        own = " ".join(w for w in text.split() if w.strip(".,;:()").lower() not in vals)
        question = prompt or own
        try:
            hits = store.index.search(f"{own} {prompt}", limit=TURNS_READ, kinds=("turn",), projects=[project],
                                      roles=("user",), exclude_refs=list(skip_sessions),
                                      times=[(when + 1, 2 ** 62)])
        except MemError:
            continue
        said = [Said(text, when, project, "fact")]
        turns: list[tuple[str, Turn]] = []
        for h in hits:
            try:
                t = store.get(h.id, Turn)
            except MemError:
                continue
            if getattr(t, "forgotten", 0) or not t.text.strip() or t.role != "user":
                continue
            turns.append((h.id, t))
            said.append(Said(t.text, t.timestamp, project, "turn", 1.0, (), t.seq, "user"))
        if not turns:
            continue
        sup, _ahead = relations(time_items(said, [question]))
        if sup[0]:
            oid, t = turns[sup[0][0] - 1]   # the newest (relations orders them newest first)
            out[f.key] = LaterTurn(f.key, oid, t.session, t.seq, t.timestamp, t.text)
    return out
