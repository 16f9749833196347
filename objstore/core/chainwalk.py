"""Walking a chain of objects back along their ``parent`` links (a
fact's versions, a sealed key's, a session's turns): :class:`ChainWalk`,
a part of :class:`objstore.core.store.Store` (split from ``core.store`` to
keep that module under 40 KB, as ``core.repack``'s ``PackRewrites``)."""

from __future__ import annotations

from collections.abc import Iterator

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, IntegrityError, NotFound, PackFileMissing

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from typing import TypeVar
    T = TypeVar("T")


class ChainWalk:
    """:meth:`walk_chain` for a store (``objects``, ``_packs``, ``get``,
    ``damaged`` are the store's)."""

    def walk_chain(self, oid: str | None, expected: type[T], what: str) -> Iterator[tuple[str, T]]:
        """``(id, object)`` from ``oid`` back along ``parent`` links (a fact,
        sealed-version or turn chain), newest first; stops at a repeated id.

        A damaged or missing *older* object ends the walk there (the history
        above it stays readable; the id is noted in :attr:`damaged` and ``mem
        fsck --repair`` mends the chain).

        Loose first: while the packs are not open yet (a new process's
        first read) each object is read from its loose file, as long as the
        chain's objects are loose (a key written since the last gc: the
        head and its recent parents); at the first one that is not, and for
        a damaged loose copy, :meth:`get` reads it (packs first, then loose)
        and the rest of the chain.  The bytes are the same either way (both
        copies are verified against the id): a ``mem get`` of such a key
        never opens a pack (issue 12, "Start-up").

        Raises:
            IntegrityError: the first object (``oid`` itself) is missing or
                damaged ("<what> <id> is missing or damaged: …")."""
        seen = set()
        first = True
        loose = self._packs is None
        while oid is not None and oid not in seen:
            seen.add(oid)
            try:
                obj = None
                if loose:
                    try:
                        obj = decode(self.objects.get(oid), expected, strict=False)
                    except (NotFound, CorruptObject):
                        loose = False
                if obj is None:
                    obj = self.get(oid, expected)
            except (NotFound, CorruptObject) as e:
                self.damaged.setdefault(oid, str(e))
                if not first:
                    return
                raise IntegrityError(f"{what} {oid} is missing or damaged: {e}",   # a missing pack's own hint
                                     hint=e.hint if isinstance(e, PackFileMissing) else None) from None
            first = False
            yield oid, obj
            oid = obj.parent  # type: ignore[attr-defined]
