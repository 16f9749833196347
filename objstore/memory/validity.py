"""When a new version of a key becomes valid: the ``valid_from`` of a plain
write (one with no explicit time), shared by plain facts
(``objstore.memory.facts.remember``) and sealed ones
(``objstore.vault.sealed``).

The supersession rule (``docs/design.md``) makes the version with the
greatest ``valid_from`` current.  A plain write is "valid from now", but
"now" is the writing machine's clock: a version written on a machine whose
clock runs minutes ahead (or before this one's clock stepped back) would
outrank a newer write made on top of it until its time came due, and then
undo it.  So a plain write is valid from now or 1 ms after the latest
version it supersedes, whichever is later.
"""

from __future__ import annotations

from collections.abc import Iterable


def plain_valid_from(times: Iterable[tuple[int, int]], now: int) -> int:
    """The ``valid_from`` (ms since epoch) of a plain write made at ``now``
    (ms) on top of versions whose ``(valid_from, recorded_at)`` are
    ``times``: ``now``, or 1 ms after the greatest ``valid_from`` among the
    versions that are valid by ``now`` or were written valid from their own
    recording time (plain writes and backfills, ``valid_from <=
    recorded_at``, whatever the clocks of the machines that wrote them), if
    that is later.  A version scheduled with an explicit later
    ``valid_from`` (after its ``recorded_at`` and after ``now``) is not
    counted: it still takes over when it comes due.  Never raises."""
    top = max((vf for vf, rec in times if vf <= now or vf <= rec), default=now - 1)
    return max(now, top + 1)
