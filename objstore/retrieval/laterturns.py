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
the :data:`TURNS_READ` later ones that share most of its words (two at
least, or one that the turn names a value of: "We upgraded to Postgres
16" for ``project/api/db`` "Postgres 15 on port 5432", test28 Y6).  Else one
search per fact, for its words (and the prompt's), :data:`TURNS_READ`
turns read, for the :data:`FACTS_SEARCHED` oldest facts only (a fact
recorded long ago is the likeliest to have changed; each search costs
~2 ms CPU).  Only facts of a project whose body states a value
(``timeline.values_of``) are checked, at most :data:`FACTS_CHECKED` a
call.  (A search per fact always cost the session block 30 ms CPU for 20
facts: ``docs/benchmarks.md``, session 26.)

The session block's verdicts are kept (:data:`VERDICTS_FILE`, :class:`_Verdicts`):
the rule's answer for a fact is a pure function of the fact's version (its
object id), the later turns it was compared with (their ids: turns never
change under an id) and the code of the rule, so it is looked up under the
digest of those, and a session block whose facts and candidate turns are
the ones an earlier block saw reads no term and runs no rule (~9 of the
~18 ms CPU the rule cost a block of 20 facts; docs/benchmarks.md, session
27).  A new turn or version is a new digest, so nothing is ever stale.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.errors import MemError
from objstore.core.ids import blake3, to_raw
from objstore.core.objects import Fact, Turn
from objstore.core.record import Frozen, set_fields
from objstore.core.store import Store
from objstore.core.text import LazyPattern
from objstore.memory.provenance import turn_author
from objstore.memory.scope import key_project
from objstore.retrieval.keyrank import key_term
from objstore.retrieval.querywords import text_terms
from objstore.retrieval.storedat import stored_before
from objstore.retrieval.timeitems import Said, fact_text, time_items
from objstore.retrieval.timeline import relations, values_of
# (relations imports these two where it compares values: loaded here, as a verdict's digest reads their files)
import objstore.retrieval.factchange  # noqa: F401,E402
import objstore.retrieval.restated  # noqa: F401,E402

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
             "adopted longer ditched days nowadays")   # (the last two: wordchange's "no longer uses X", "ditched X", tl30's P4;
#   not "removed": a word of most coding turns, each one more turn the block reads)
#   ("days", "nowadays": timeitems.CHANGE_PHRASE_RE's "these days", test33 T20)
#: a number of a fact's body (three digits at least: a port, not a count): the block's search holds them, for the turn that names the old value
_NUMBER_RE = LazyPattern(r"(?<![\w.])\d{3,}(?![\w.])")

#: facts checked in one call, at most (a session block lists a few dozen)
FACTS_CHECKED = 24
#: characters of a served passage whose words search for its later turns (a fact's whole text is read)
TURN_WORDS_CHARS = 400
#: characters of the turn's text a mark quotes
SNIPPET_CHARS = 160
#: the session block's kept verdicts (docs/format.md, "Derived files under cache/")
VERDICTS_FILE = "cache/later-turns"
#: verdicts kept, at most (the newest first; 17 bytes each)
VERDICTS_MAX = 1024
_VERDICTS_HEAD = b"mem later-turns 1\n"
#: the modules whose code decides a verdict: their files' size and time are part of its digest
_RULE_MODULES = ("objstore.retrieval.laterturns", "objstore.retrieval.timeline", "objstore.retrieval.factchange",
                 "objstore.retrieval.timeitems",
                 "objstore.retrieval.subjects", "objstore.retrieval.wordchange", "objstore.retrieval.querywords",
                 "objstore.retrieval.restated", "objstore.memory.provenance", "objstore.index.analysis",
                 "tantivy.tantivy")


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
                skip_sessions: Sequence[str] = (), ids: Sequence[str] | None = None,
                turns: Sequence[tuple[str, Turn]] = (), project: str = "") -> dict[str, LaterTurn]:
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
            ``strict``); their verdicts are never kept.
        prompt: the question being answered (the hook's prompt): its words
            join the fact's in the search and count as the question's in
            the rule; "" (the session block): the fact's own words are the
            question.
        skip_sessions: sessions whose turns are not read (the session being
            served: its turns are in the model's context already).
        project: the project served (the session block's, the hook's):
            a ``user/`` fact, which applies in every project, is checked
            against the person's later turns of it (test29 P13), found by
            one search for their words (and the prompt's) whatever their
            change words, at most :data:`FACTS_SEARCHED` such facts; only the
            person's own word that one of its words was replaced marks it
            (``wordchange.user_word_changes``); "": none checked.
        ids: the object ids of ``facts`` (64 hex), in order: given without
            a prompt and ``skip_sessions`` (the session block), the
            verdicts are looked up in and added to :data:`VERDICTS_FILE`
            (module docstring); None: none kept.

    Never raises for a damaged store: an unreadable index or turn leaves
    the fact unmarked.
    """
    out: dict[str, LaterTurn] = {}
    # project -> (key, time, as said, words, body, id or "", values or None, a user/ fact)
    groups: dict[str, list[tuple[str, int, Said, str, str, str, tuple | None, bool]]] = {}
    kept = _Verdicts(store) if ids is not None and len(ids) == len(facts) and not prompt and not skip_sessions \
        else None
    here = project
    served: list[tuple[str, str, str, Fact | Turn, str]] = [
        (f.key, key_project(f.key) or (here if f.key.startswith("user/") else ""), f.body, f,
         ids[i] if kept is not None else "") for i, f in enumerate(facts)]
    served += [(oid, t.project, t.text, t, "") for oid, t in turns]
    n = users = 0
    for key, project, body, obj, fid in served:
        user = isinstance(obj, Fact) and key.startswith("user/")
        if not project or n >= FACTS_CHECKED or not body.strip() or user and users >= FACTS_SEARCHED:
            continue
        vals = None
        has = 1 if user else None if not fid else kept.get(d := kept.digest(fid, "values", ()))
        if has is None:   # (else its values are read only when a verdict is not kept: _own)
            vals = tuple(values_of(body))
            has = 1 if vals else 0
            if fid:
                kept.put(d, has)
        if not has:
            continue
        n, users = n + 1, users + user
        if isinstance(obj, Fact):
            when = obj.said_at
            # (a user/ fact has no project, as recall reads it: only the person's word on its own word marks it)
            said = Said(fact_text(key, body), when, "" if user else project, "fact")
            words = said.text
        else:   # (a passage: its first words are the search's, as a fact's whole text is)
            when = obj.timestamp
            said = Said(body, when, project, "turn", 1.0, (), obj.seq, obj.role, obj.session)
            words = body[:TURN_WORDS_CHARS]
        groups.setdefault(project, []).append((key, when, said, words, body, fid, vals, user))
    cache: dict[str, frozenset[str]] = {}
    exclude = list(skip_sessions)
    for project, group in groups.items():
        oldest = min(g[1] for g in group)
        # rule 8 needs a change word: the person's later turns that hold one, if they are few, are every candidate
        # (and the facts' numbers, not a passage's: "shop db port: 5432 -> 6543" holds no change word, test33 T20)
        nums = " ".join(sorted({m for g in group if not g[7] and g[2].kind == "fact" for m in _NUMBER_RE.findall(g[4])}))
        got = _read(store, f"{CUE_QUERY} {nums}", project, oldest, CUE_READ, exclude, stopwords=False) \
            if not all(g[7] for g in group) else []
        if got is None:
            continue
        few = len(got) < CUE_READ
        # many: a search per fact, for the oldest FACTS_SEARCHED (the likeliest to have changed)
        searched = set() if few else {g[0] for g in sorted(group, key=lambda g: g[1])[:FACTS_SEARCHED]}
        users = [g for g in group if g[7]]   # one search for every user/ fact's words (~4 ms CPU a search)
        mine_u = []   # (their words less the scope word "user": "editor I use vim as my editor")
        if users:
            mine_u = _read(store, " ".join(_own(g[3].partition(" ")[2], g[4], g[6]) for g in users) + f" {prompt}",
                           project, min(g[1] for g in users), TURNS_READ * len(users), exclude) or []
        for key, when, said, words, body, fid, vals, user in group:
            if not user and (not got or not few and key not in searched):
                continue
            if few and not user:
                if fid:   # compared with the same turns before: that verdict
                    digest = kept.digest(fid, "few", got)
                    if (v := kept.get(digest)) is not None:
                        if v < len(got):
                            _mark(out, key, project, *got[v])
                        continue
                mine = text_terms(own := _own(words, body, vals), cache)
                near = sorted(((_shared(mine, t.text, cache), i) for i, (_oid, t) in enumerate(got)
                               if t.timestamp > when), reverse=True)
                pick = [got[i] for shared, i in near[:TURNS_READ] if shared >= 2]   # (rule 8 needs two)
            elif user:   # the turns of the one search that hold a word of this fact
                mine = text_terms(own := _own(words.partition(" ")[2], body, vals), cache)   # (not "user")
                pick = [(oid, t) for oid, t in mine_u
                        if t.timestamp > when and _shared(mine, t.text, cache)][:TURNS_READ]
            else:   # many: the ones about this fact
                pick = _read(store, f"{(own := _own(words, body, vals))} {prompt}", project, when, TURNS_READ,
                             exclude) or []
            if not few or user:
                if fid:
                    digest = kept.digest(fid, "many", pick)
                    if (v := kept.get(digest)) is not None:
                        if v < len(pick):
                            _mark(out, key, project, *pick[v])
                        continue
            pick = [(oid, t) for oid, t in pick if oid != key]
            verdict = _NONE
            if pick:
                items = [said] + [Said(t.text, t.timestamp, project, "turn", 1.0, (), t.seq, "user", t.session)
                                  for _oid, t in pick]
                sup, _ahead = relations(time_items(items, [prompt or own], terms_cache=cache, keep_named=bool(prompt)),
                                         strict=(0,))
                cand = list(pick)
                while sup[0] and stored_before(store, cand[sup[0][0] - 1][0], cand[sup[0][0] - 1][1].session, when):
                    # stamped ahead by its clock but stored before the version was said: not later (test36 T18)
                    del items[sup[0][0]], cand[sup[0][0] - 1]
                    sup = relations(time_items(items, [prompt or own], terms_cache=cache, keep_named=bool(prompt)),
                                    strict=(0,))[0] if cand else [[]]
                if sup[0]:
                    oid, t = cand[sup[0][0] - 1]   # the newest (relations orders them newest first)
                    _mark(out, key, project, oid, t)
                    verdict = (got if few and not user else pick).index((oid, t))
            if fid:
                kept.put(digest, verdict)
    if kept is not None:
        kept.save()
    return out


#: a word right before a number: what the value is of ("Postgres 16", "port 6543")
_OF_VALUE_RE = LazyPattern(r"(?<![\w.])([^\W\d_][\w-]*)[ \t]+v?\d")


def _shared(mine: frozenset[str], text: str, cache: dict[str, frozenset[str]]) -> int:
    """How many of a fact's words ``mine`` (terms) a later turn's ``text``
    shares, one shared word counted twice where the turn names a value of
    it (the word right before a number: "We upgraded to Postgres 16" shares
    "postgres" with ``project/api/db`` "Postgres 15 on port 5432", test28
    Y6).  The spellings of one ``core.text.KEY_ABBREVIATIONS`` group are
    one word ("we switched the database port to 6543" shares two with
    ``db-port``, test35 T7: recall marked the fact, the hook did not)."""
    mine = frozenset(map(key_term, mine))
    n = len(both := mine & frozenset(map(key_term, text_terms(text, cache))))
    if n == 1 and both & frozenset(map(key_term, text_terms(" ".join(_OF_VALUE_RE.findall(text[:TURN_WORDS_CHARS])),
                                                            cache))):
        return 2
    return n


def _own(words: str, body: str, vals: tuple | None) -> str:
    """An item's own words (``words``: a fact's :func:`fact_text`, a
    passage's first :data:`TURN_WORDS_CHARS` characters) less its values
    (``vals``, or read from ``body``: values are never the subject)."""
    if vals is None:
        vals = values_of(body)
    return " ".join(w for w in words.split() if w.strip(".,;:()").lower() not in vals)


def _mark(out: dict[str, LaterTurn], key: str, project: str, oid: str, t: Turn) -> None:
    out[key] = LaterTurn(key, oid, t.session, t.seq, t.timestamp, t.text, project)


#: the verdict "no later turn changes it" (else the index of the turn among those compared)
_NONE = 255
_RULE_CODE: list[bytes] = []   # the code signature, once a process


class _Verdicts:
    """The kept verdicts of :func:`later_turns` (:data:`VERDICTS_FILE`):
    after :data:`_VERDICTS_HEAD`, 17-byte records, the newest first: the
    first 16 bytes of BLAKE3 of the rule's code signature (each of
    :data:`_RULE_MODULES`' file size and modification time), the fact's
    version id, how its turns were found (``few``: the project's turns with
    a change word, ``many``: a search for the fact) and those turns' ids in
    order, all raw; then one byte, the index among those turns of the one
    that changes the fact, or 255 for none.  Only digests and indices: no
    value, word or id of the store can be read back.  A file that does not
    parse is read as empty; it is replaced (atomically, not durably) when a
    call added verdicts and the store can be written, and errors are
    ignored: it is derived, deleting it loses nothing."""

    def __init__(self, store: Store) -> None:
        self.path = Path(store.root) / VERDICTS_FILE
        try:
            raw = self.path.read_bytes()
        except OSError:
            raw = b""
        h = len(_VERDICTS_HEAD)
        self.body = raw[h:] if raw.startswith(_VERDICTS_HEAD) and (len(raw) - h) % 17 == 0 else b""
        self.new: dict[bytes, int] = {}

    def digest(self, fact_id: str, how: str, turns: Sequence[tuple[str, Turn]]) -> bytes:
        """The record key of a fact's verdict over ``turns`` ((id, Turn))."""
        if not _RULE_CODE:
            sig = []
            for name in _RULE_MODULES:
                try:
                    st = os.stat(sys.modules[name].__file__)   # (each is imported with this module)
                    sig.append(f"{name} {st.st_size} {st.st_mtime_ns}")
                except (KeyError, AttributeError, TypeError, OSError):
                    sig.append(f"{name} ?")
            _RULE_CODE.append("\n".join(sig).encode())
        try:
            ids = b"".join(to_raw(x) for x in [fact_id, *(oid for oid, _t in turns)])
        except ValueError:   # not hex: an id no record can name
            ids = "\n".join([fact_id, *(oid for oid, _t in turns)]).encode("utf-8", "surrogateescape")
        return blake3(_RULE_CODE[0] + b"\0" + how.encode() + b"\0" + ids).digest()[:16]

    def get(self, digest: bytes) -> int | None:
        """The kept verdict under ``digest``, or None."""
        if digest in self.new:
            return self.new[digest]
        at = self.body.find(digest)
        while at >= 0 and at % 17:   # (a digest's bytes across two records)
            at = self.body.find(digest, at + 1)
        return None if at < 0 else self.body[at + 16]

    def put(self, digest: bytes, verdict: int) -> None:
        """Keep ``verdict`` under ``digest`` (written by :meth:`save`)."""
        self.new[digest] = verdict

    def save(self) -> None:
        """Write the file with the new verdicts first, if there are any."""
        if not self.new:
            return
        recs = [d + bytes([v]) for d, v in self.new.items()]
        old = (self.body[i:i + 17] for i in range(0, len(self.body), 17))
        recs += [r for r in old if r[:16] not in self.new]
        try:
            atomic_write(self.path, _VERDICTS_HEAD + b"".join(recs[:VERDICTS_MAX]), durable=False)
        except (OSError, MemError):
            pass


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
