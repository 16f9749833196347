"""Where the turns a transcript gives back go, in a session ``mem fsck
--repair`` mended (``docs/design.md``, "Damage and repair").

A repair keeps a lost turn's place with a *lost placeholder*
(:func:`is_lost_placeholder`; ``objstore.memory.repair``).  When ``mem
import`` reads the session's transcript again (``--reread``), the records
that are not in the chain are the lost ones: a :class:`RefillPlan` tells
which of them fill a *gap* (a run of consecutive placeholders) and when a
gap is complete, and :class:`Refill`, which ``mem import`` hands to its turn
appender (``objstore.memory.appender.TurnAppender``), writes them.

The rule.  The transcript is read in order.  A gap is opened by the record
just below it (the survivor whose source is the one before the gap's first
placeholder; for a gap at the start of the chain, the session's first record
in the file); the unknown records that follow are kept for it; the next
record that is in the chain closes it.  The gap *fits* when that record is
the survivor just above the gap and exactly as many records were kept as
the gap has placeholders: then the appender writes them in the
placeholders' places (same seq numbers, chained onto the survivor below)
and rewrites the turns above onto them.  A record rebuilt exactly as it
was first written hashes to the id it had, so when the turn written in the
gap's top place has the id its placeholder names (``lost:<id>``), the
turns above get their ids from before the damage back (*verified*).  A
gap that does not fit (the transcript changed, the capture settings
changed) is left as it was and its records are appended at the session's
end, as any new record.  A run at the chain's end (a session whose
head was lost with its last turns: one placeholder, how many turns is
unknown) is an *open* gap: the records that follow its survivor to the
file's end fill it, from the placeholder's seq on, whatever their number
(``mem import --reread``; a pull fills it only up to the head it names:
:func:`refill_from`).  Memory: the chain's ``(id, Turn)`` pairs, for the
sessions that hold placeholders only.

A pull applies the same plan with another machine's chain of the session
as the transcript (:func:`refill_from`, called by
``objstore.remote.merge.merge_chain``): it writes nothing itself, the merge
re-links what it returns.
"""

from __future__ import annotations

from objstore.core.objects import LOST_SOURCE, Turn
from objstore.core.record import Record, set_fields
from objstore.core.store import Store
from objstore.index.errors import SearchIndexError
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn, SessionState, taints_after


_START = None  # ``prev`` at the start of a file: the gap keyed by it is the one at the chain's start


def is_lost_placeholder(turn: Turn) -> bool:
    """True for a turn ``mem fsck --repair`` wrote in a lost turn's place:
    role ``system``, empty text, ``forgotten`` set, ``source`` ``lost:…``
    (``objstore.memory.repair``; docs/format.md, "Lost placeholders")."""
    return turn.source.startswith(LOST_SOURCE) and turn.role == "system" and not turn.text and bool(turn.forgotten)


def lost_id(turn: Turn) -> str | None:
    """The id a placeholder names (``lost:<64 hex>``): the lost turn's own
    id, known for the top placeholder of a run; None for ``lost:<seq>``."""
    tail = turn.source[len(LOST_SOURCE):]
    return tail if len(tail) == 64 else None


class Gap(Record):
    """A run of consecutive placeholders: chain positions ``first`` ..
    ``last`` (oldest first), the source of the survivor ``below`` it (None at
    the chain's start) and ``above`` it, ``lost`` the id the top placeholder
    names (or None); ``kept``: the records kept for it so far, ``(captured
    turn, harness)``."""

    __slots__ = ("first", "last", "below", "above", "lost", "kept")

    def __init__(self, first: int, last: int, below: str | None, above: str, lost: str | None,
                 kept: list | None = None) -> None:
        set_fields(self, first, last, below, above, lost, [] if kept is None else kept)

    @property
    def size(self) -> int:
        """How many placeholders the gap holds."""
        return self.last - self.first + 1


class RefillPlan:
    """The gaps of one session's chain and the reading position in its
    transcript (see the module doc).  ``chain``: ``[id, Turn]`` pairs,
    oldest first, kept up to date by the appender as it writes (a gap
    filled, turns rewritten above it, turns appended)."""

    def __init__(self, chain: list[list]) -> None:
        self.chain = chain
        self.gaps: dict[str | None, Gap] = {}   # by the source of the survivor below
        self.prev: str | None = _START
        self.filling: Gap | None = None
        i, n = 0, len(chain)
        while i < n:
            if not is_lost_placeholder(chain[i][1]):
                i += 1
                continue
            j = i
            while j + 1 < n and is_lost_placeholder(chain[j + 1][1]):
                j += 1
            below = chain[i - 1][1].source if i else _START
            if j + 1 < n:
                self.gaps[below] = Gap(i, j, below, chain[j + 1][1].source, lost_id(chain[j][1]))
            elif i:   # the session's end, lost with its head (how many turns is unknown, test34 T11): open,
                self.gaps[below] = Gap(i, j, below, None, lost_id(chain[j][1]))   # filled by what follows
            i = j + 1

    @classmethod
    def of(cls, store: Store, head: str | None) -> "RefillPlan | None":
        """The plan of the chain from ``head``, or None when it holds no
        gap (no placeholder, or a chain that does not read to its root:
        ``fsck --repair`` first)."""
        chain: list[list] = []
        for oid, t in store.walk_chain(head, Turn, "turn"):
            chain.append([oid, t])
        if not chain or chain[-1][1].parent is not None:
            return None
        chain.reverse()
        plan = cls(chain)
        return plan if plan.gaps else None

    def known(self, source: str) -> tuple[Gap | None, bool]:
        """A record the chain holds (stored as ``source``) is read: returns
        the gap it closes (or None) and whether that gap fits."""
        gap, self.filling = self.filling, None
        self.prev = source
        if gap is None:
            return None, False
        del self.gaps[gap.below]
        return gap, source == gap.above and len(gap.kept) == gap.size

    def unknown(self, source: str, item: tuple) -> bool:
        """A record the chain does not hold: True when it is kept for a gap
        (``item``, its ``(captured turn, harness)``), else False (the
        appender appends it; its ``source`` becomes the reading position)."""
        gap = self.filling
        if gap is None:
            gap = self.gaps.get(self.prev)
            if gap is None:
                self.prev = source
                return False
            self.filling = gap
        if all(ct.source != item[0].source for ct, _h in gap.kept):  # a repeated record is kept once
            gap.kept.append(item)
        return True

    def end_of_file(self, *, drop: bool = False) -> Gap | None:
        """The file's end: the reading position goes back to the start; a gap
        still being filled is returned, done (it does not fit), or with
        ``drop`` (the file could not be read to its end) emptied and kept
        for a later read."""
        gap, self.filling = self.filling, None
        self.prev = _START
        if gap is None:
            return None
        if drop:
            gap.kept = []
            return None
        del self.gaps[gap.below]
        return gap


def refill_from(chain: list, other: list) -> tuple[list, list[Gap]]:
    """The placeholder runs of ``chain`` that ``other`` (another copy of the
    session, e.g. a remote's: ``mem pull``) fills, by the module's rule with
    ``other`` read as the transcript: its turns, oldest first, are the
    records, and a turn is *known* when ``chain`` holds its ``source``.

    Args:
        chain, other: ``[(id, Turn)]`` oldest first, each the whole chain of
            one session (``other`` may be empty).
    Returns:
        ``(chain with each fitting run's placeholders replaced by the
        ``(id, Turn)`` pairs of ``other`` that stand for them, as they are:
        the caller re-links them and what follows, gaps filled)``.  A gap's
        ``lost`` id is in the re-linked result exactly when the run was
        rebuilt byte for byte (*verified*).  A run is left as it is when
        ``other`` does not fit it (a turn more or less between its
        neighbours) or when what fits it holds a placeholder.  A run
        ``other`` reads on to its end without closing it (a session's end,
        lost with its head: how many turns is unknown) is filled when
        ``other`` holds the id its top placeholder names: with ``other``'s
        turns after the survivor below it up to that one (test36b T16: the
        placeholder stayed between the remote's turns, and a push spread
        it); else it is left as it is.  Pure: reads
        and writes nothing.  Cost: O(len(chain) + len(other)).
    """
    plan = RefillPlan([list(e) for e in chain])
    if not plan.gaps or not other:
        return chain, []
    have = {t.source for _o, t in chain if not is_lost_placeholder(t)}
    fits: list[Gap] = []
    for oid, t in other:
        if t.source in have:
            gap, fit = plan.known(t.source)
            if gap is not None and fit and not any(is_lost_placeholder(k[0]) for k in gap.kept):
                fits.append(gap)
        else:
            plan.unknown(t.source, (t, oid))
    last = plan.end_of_file()   # a run ``other`` reads on to its end: a lost head's (test36b T16)
    if last is not None and last.lost is not None and not any(is_lost_placeholder(k[0]) for k in last.kept):
        ids = [oid for _t, oid in last.kept]
        if last.lost in ids:   # ``other`` holds the lost head itself: the turns up to it are the lost ones
            last.kept = last.kept[:ids.index(last.lost) + 1]
            fits.append(last)
    out = list(chain)
    for gap in sorted(fits, key=lambda g: -g.first):   # from the top: earlier positions stay put
        out[gap.first:gap.last + 1] = [(oid, t) for t, oid in gap.kept]
    return out, fits


class Refill:
    """What a :class:`~objstore.memory.appender.TurnAppender` of ``store``
    given one (``refill=``) does for the sessions that hold lost placeholders: one
    :class:`RefillPlan` each (made when the appender loads the session),
    the records kept for their gaps, and the gaps written.

    Attributes:
        plans: session id -> its plan.
        refilled: turns written in the places of placeholders.
        gaps_refilled: runs of placeholders filled.
        gaps_verified: gaps whose top turn hashed to the id its placeholder
            names (the turns above got their ids from before the damage back).
        replaced: ids of turns that left their chain when it was rewritten
            above a filled gap (their index documents: :meth:`unindex`).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.plans: dict[str, RefillPlan] = {}
        self.refilled = 0
        self.gaps_refilled = 0
        self.gaps_verified = 0
        self.replaced: list[str] = []

    def loaded(self, sid: str, st: SessionState) -> None:
        """The appender loaded ``st``: a plan is made when its chain holds a
        placeholder (O(its turns) once per load; the chain is read only then)."""
        if any(s.startswith(LOST_SOURCE) for s in st.sources):
            plan = RefillPlan.of(self.store, st.head)
            if plan is not None:
                self.plans[sid] = plan

    def keep_only(self, sids: set[str]) -> None:
        """Forget the plans of the sessions not in ``sids`` (the appender
        dropped their states: a later load makes them again)."""
        self.plans = {sid: p for sid, p in self.plans.items() if sid in sids}

    def add(self, app: TurnAppender, sid: str, st: SessionState, ct: CapturedTurn, known: bool,
            harness: str | None) -> str | None:
        """``TurnAppender.add`` for a session with a plan: the record is
        skipped (``known``: it may close a gap), kept for a gap, or
        appended (its id returned)."""
        plan = self.plans[sid]
        if known:
            gap, fits = plan.known(ct.source if ct.source in st.sources else
                                   ct.legacy if ct.legacy and ct.legacy in st.sources else ct.alias)   # (an older mem's id)
            if gap is not None:
                self._close(app, sid, st, plan, gap, fits)
            return None
        if plan.unknown(ct.alias or ct.source, (ct, harness)):
            return None
        return self._append(app, sid, st, plan, ct, harness)

    def end_file(self, app: TurnAppender, *, read_whole: bool = True) -> None:
        """The caller has given every record of one transcript file: a gap
        still being filled does not fit (its records are appended), or,
        when the file could not be read to its end (``read_whole`` False),
        its records are dropped (a later read fills it)."""
        for sid, plan in list(self.plans.items()):
            gap = plan.end_of_file(drop=not read_whole)
            if gap is not None:   # an open gap (a session's lost end) fits whatever followed its survivor
                self._close(app, sid, app.state(sid), plan, gap, gap.above is None and bool(gap.kept))

    def unindex(self) -> str | None:
        """Delete the documents of :attr:`replaced` from the search index
        (once the turns are published and the import's index stream is
        closed); returns the index error message, or None."""
        ids, self.replaced = self.replaced, []
        if not ids:
            return None
        try:
            self.store.index.add((), delete_ids=ids, delete_kinds=("turn",))
        except SearchIndexError as e:
            return str(e)
        return None

    @staticmethod
    def _append(app: TurnAppender, sid: str, st: SessionState, plan: RefillPlan, ct: CapturedTurn,
                harness: str | None) -> str:
        oid, turn = app.write_next(sid, st, ct, harness, app.filter(), forecast=False)
        plan.chain.append([oid, turn])
        return oid

    def _close(self, app: TurnAppender, sid: str, st: SessionState, plan: RefillPlan, gap: Gap,
               fits: bool) -> None:
        """A gap's records are all read: written in its places when it
        ``fits`` (and the turns above rewritten onto them), else appended
        at the session's end."""
        if not fits:
            for ct, harness in gap.kept:
                self._append(app, sid, st, plan, ct, harness)
            return
        chain, flt = plan.chain, app.filter()
        saved = (st.next_seq, st.head_role, st.head_source, st.taints)
        below = chain[gap.first - 1] if gap.first else None
        st.head = below[0] if below else None
        st.taints = taints_after(below[1]) if below else False
        st.next_seq = chain[gap.first][1].seq
        filled = [list(app.write_next(sid, st, ct, harness, flt, forecast=False)) for ct, harness in gap.kept]
        app.chain_rewritten(sid)
        self.refilled += len(filled)
        self.gaps_refilled += 1
        self.gaps_verified += st.head == gap.lost
        for _oid, stub in chain[gap.first:gap.last + 1]:
            st.sources.discard(stub.source)
        chain[gap.first:gap.last + 1] = filled
        parent = st.head
        for j in range(gap.first + len(filled), len(chain)):   # the turns above, onto the filled ones
            oid, turn = chain[j]
            turn = turn.replace(parent=parent)
            parent = app.put_rewritten(turn)
            chain[j] = [parent, turn]
            if not turn.forgotten and oid != parent:
                self.replaced.append(oid)
        st.head = parent
        if gap.above is not None:   # an open gap's records are the session's end: the state they left stays
            st.next_seq, st.head_role, st.head_source, st.taints = saved
        app.dirty.add(sid)
