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

The prompt hook checks the turn passages it injects the same way
(``turns=``; a passage judged as a fact is, ``timeline.relations``'
``strict``; rule 10, the same quantity restated, ``restated.restates``,
counts for both): "The API rate limit for the public gateway is 100
requests per minute per key." and, months later, the person's "Bump the
gateway limit: from today keys get 500 requests per minute." (session
27, test26 V12).  Only the person's turns are read (a sub-agent's prompt
is its parent agent's, ``provenance.turn_author``).

The caller marks the fact with the turn (its date, session, and its words
up to :data:`SNIPPET_CHARS`): the session-start block on the fact's line,
the hook with the turn's passage put before the fact.  The reader (the
model, the person) then knows the value may be stale and where it was
said; to supersede it the person records the new value (``mem remember``).

Cost: one index search per project first, for the person's turns after
the oldest checked fact that hold a change word (:data:`CUE_QUERY`; rule
8 needs one).  None: nothing to mark, nothing more read.  Fewer than
:data:`CUE_READ`: they are every candidate, and each fact is compared with
the :data:`TURNS_READ` later ones that share most of its words.  Else one
search per fact, for its words (and the prompt's), :data:`TURNS_READ`
turns read, for the :data:`FACTS_SEARCHED` oldest facts only (a fact
recorded long ago is the likeliest to have changed; each search costs
~2 ms CPU).  Only facts of a project whose body states a value
(``timeline.values_of``) are checked, at most :data:`FACTS_CHECKED` a
call.  (A search per fact always cost the session block 30 ms CPU for 20
facts: ``docs/benchmarks.md``, session 26.)
"""

from __future__ import annotations

from collections.abc import Sequence

from objstore.core.errors import MemError
from objstore.core.objects import Fact, Turn
from objstore.core.record import Frozen, set_fields
from objstore.core.store import Store
from objstore.memory.provenance import turn_author
from objstore.memory.scope import key_project
from objstore.retrieval.querywords import text_terms
from objstore.retrieval.timeitems import Said, fact_text, time_items
from objstore.retrieval.timeline import relations, values_of

#: the person's later turns of a fact's project compared with each fact, at most
TURNS_READ = 3
#: the person's later turns holding a change word read for one project's
#: facts; fewer found: they are every candidate (no search per fact)
CUE_READ = 12
#: facts of one project searched for one by one when the later turns with a change word are many, at most
FACTS_SEARCHED = 6
#: words whose stems are ``subjects.UPDATE_CUES`` (the index stems them alike)
CUE_QUERY = ("now anymore switched moved migrated upgraded downgraded bumped raised replaced instead renamed "
             "swapped took changed updated increased decreased reduced lowered scaled dropped retired deprecated "
             "adopted")
#: facts checked in one call, at most (a session block lists a few dozen)
FACTS_CHECKED = 24
#: characters of a served passage whose words search for its later turns (a fact's whole text is read)
TURN_WORDS_CHARS = 400
#: characters of the turn's text a mark quotes
SNIPPET_CHARS = 160


class LaterTurn(Frozen):
    """A turn said after a fact's version that changes its value.

    Attributes:
        key: the fact's key (a passage's: its turn's id).  id: the
        later turn's object id.  session, seq: where it was said.  time:
        its timestamp (ms).  text: its text (whole; the caller cuts and
        hides what it shows).  project: its project.
    """

    __slots__ = ("key", "id", "session", "seq", "time", "text", "project")

    def __init__(self, key: str, id: str, session: str, seq: int, time: int, text: str, project: str = "") -> None:
        set_fields(self, key, id, session, seq, time, text, project)


def later_turns(store: Store, facts: Sequence[Fact], *, prompt: str = "",
                skip_sessions: Sequence[str] = (), turns: Sequence[tuple[str, Turn]] = ()) -> dict[str, LaterTurn]:
    """For each of ``facts`` (current versions) whose value a later turn of
    the person changes (module docstring), the newest such turn:
    ``{key: LaterTurn}``; and the same for each of ``turns``, keyed by the
    turn's id (``LaterTurn.key``).

    Args:
        facts: the facts served, best first; the first
            :data:`FACTS_CHECKED` of a project whose body states a value
            are checked.
        turns: ``(id, Turn)`` of passages served (the prompt hook's), best
            first, checked as facts are and counted with them: a turn is
            judged by rule 8 as a fact is (``timeline.relations``,
            ``strict``).
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
    groups: dict[str, list[tuple[str, int, Said, str]]] = {}   # project -> (key, time, as said, own words)
    served: list[tuple[str, str, str, Fact | Turn]] = [(f.key, key_project(f.key) or "", f.body, f) for f in facts]
    served += [(oid, t.project, t.text, t) for oid, t in turns]
    n = 0
    for key, project, body, obj in served:
        if not project or n >= FACTS_CHECKED or not body.strip():
            continue
        vals = values_of(body)
        if not vals:
            continue
        n += 1
        if isinstance(obj, Fact):
            when = max(obj.valid_from, obj.recorded_at)
            said = Said(fact_text(key, body), when, project, "fact")
        else:   # (a passage: its first words are the search's, as a fact's whole text is)
            when = obj.timestamp
            said = Said(body, when, project, "turn", 1.0, (), obj.seq, obj.role, obj.session)
        # the item's own words less its values (values are never the subject)
        own = " ".join(w for w in (said.text if isinstance(obj, Fact) else body[:TURN_WORDS_CHARS]).split()
                       if w.strip(".,;:()").lower() not in vals)
        groups.setdefault(project, []).append((key, when, said, own))
    cache: dict[str, frozenset[str]] = {}
    exclude = list(skip_sessions)
    for project, group in groups.items():
        oldest = min(g[1] for g in group)
        # rule 8 needs a change word: the person's later turns that hold one, if they are few, are every candidate
        got = _read(store, CUE_QUERY, project, oldest, CUE_READ, exclude, stopwords=False)
        if got is None or not got:
            continue
        few = len(got) < CUE_READ
        # many: a search per fact, for the oldest FACTS_SEARCHED (the likeliest to have changed)
        searched = set() if few else {g[0] for g in sorted(group, key=lambda g: g[1])[:FACTS_SEARCHED]}
        for key, when, said, own in group:
            if not few and key not in searched:
                continue
            if few:
                mine = text_terms(own, cache)
                near = sorted(((len(mine & text_terms(t.text, cache)), i) for i, (_oid, t) in enumerate(got)
                               if t.timestamp > when), reverse=True)
                pick = [got[i] for shared, i in near[:TURNS_READ] if shared >= 2]   # (rule 8 needs two)
            else:   # many: the ones about this fact
                pick = _read(store, f"{own} {prompt}", project, when, TURNS_READ, exclude) or []
            if not pick:
                continue
            pick = [(oid, t) for oid, t in pick if oid != key]
            items = [said] + [Said(t.text, t.timestamp, project, "turn", 1.0, (), t.seq, "user", t.session)
                              for _oid, t in pick]
            sup, _ahead = relations(time_items(items, [prompt or own], terms_cache=cache), strict=(0,))
            if sup[0]:
                oid, t = pick[sup[0][0] - 1]   # the newest (relations orders them newest first)
                out[key] = LaterTurn(key, oid, t.session, t.seq, t.timestamp, t.text, project)
    return out


def _read(store: Store, query: str, project: str, after: int, limit: int, exclude: list[str],
          stopwords: bool = True) -> list[tuple[str, Turn]] | None:
    """The person's turns of ``project`` recorded after ``after`` (ms) that
    ``query`` finds, best first, at most ``limit``, read: ``(id, Turn)``;
    forgotten and empty ones left out.  None: the index could not be read."""
    try:
        hits = store.index.search(query, limit=limit, kinds=("turn",), projects=[project], roles=("user",),
                                  exclude_refs=exclude, times=[(after + 1, 2 ** 62)], stopwords=stopwords)
    except MemError:
        return None
    out = []
    for h in hits:
        try:
            t = store.get(h.id, Turn)
        except MemError:
            continue
        if not getattr(t, "forgotten", 0) and t.text.strip() and turn_author(t) == "person":
            out.append((h.id, t))
    return out
