"""Review-queue proposals whose ref is gone while their reflog's last move
set it (fresh43 F2): ``refs/queue`` replaced by a file and set aside by
``mem fsck --repair``, or one item's ref file deleted.  The fact, sealed and
session refs so lost were set again from their reflogs; a proposal was
dropped without a word (fsck "0 problems"), and gc then deleted the only
copy.  ``mem fsck`` names each (:func:`lost_queue_items`), ``mem fsck
--repair`` sets it again (``memory.refrestore.restore_refs``)."""

from __future__ import annotations

from objstore.core.objects import QueueItem
from objstore.core.store import Store

__all__ = ["lost_queue_items"]


def lost_queue_items(store: Store, objs: dict) -> list[tuple[str, str]]:
    """``(ref, head id)`` of each ``queue/<id>`` ref that is gone while its
    reflog's last move set it to ``head``, a stored review-queue item of
    ``objs`` (id -> decoded object).  A closed item (accepted, rejected:
    its reflog ends in a deletion) is none, nor one a stopped forget is
    rewriting (the index journal's ``Q`` lines: the next lock holder ends it).  Reads the queue's reflog files;
    a packed reflog that is no regular file: none (named elsewhere)."""
    heads = store.reflog.gone_heads(("queue",))
    if not heads:
        return []
    rewriting = store.journal.read().queue   # a stopped forget's items (their refs set again when it is finished)
    return [(ref, head) for ref, head in heads
            if ref.partition("/")[2] not in rewriting and isinstance(objs.get(head), QueueItem)]
