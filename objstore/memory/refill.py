"""Where the turns a transcript gives back go, in a session ``mem fsck
--repair`` mended (``docs/design.md``, "Damage and repair").

A repair keeps a lost turn's place with a *lost placeholder*
(:func:`is_lost_placeholder`; ``objstore.memory.repair``).  When ``mem
import`` reads the session's transcript again (``--reread``), the records
that are not in the chain are the lost ones: a :class:`RefillPlan` tells the
turn appender (``objstore.memory.sessions.TurnAppender``) which of them fill
a *gap* (a run of consecutive placeholders) and when a gap is complete.

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
end, as any new record.  Memory: the chain's ``(id, Turn)`` pairs, for the
sessions that hold placeholders only.
"""

from __future__ import annotations

from objstore.core.objects import Turn
from objstore.core.record import Record, set_fields
from objstore.core.store import Store

#: how the ``source`` of a lost placeholder starts (``lost:<id>`` or ``lost:<seq>``)
LOST_SOURCE = "lost:"

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
            if j + 1 < n:  # a repair writes placeholders below a survivor only
                below = chain[i - 1][1].source if i else _START
                self.gaps[below] = Gap(i, j, below, chain[j + 1][1].source, lost_id(chain[j][1]))
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
