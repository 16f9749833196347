"""What ``mem forget`` says when a write fails part way (a full disk, a
quota, a file size limit: tester finding test34 T8).

A forget removes stored data, so the generic "nothing already stored was
lost" (``_out.unexpected_error``) is never its answer: the store says how
far it got (``objstore.core.unfinished``, module doc).  Its note in
``forget-unfinished`` still there: stopped before every tombstone was
written, only the same forget run again finishes it.  Else the index
journal names it: every tombstone is written and the next holder of the
store lock finishes it (``objstore.memory.recovery``), tried here at once.
"""

from __future__ import annotations

import errno

import click

from cmds._out import unexpected_error

#: the write failures that are the machine's state (docs/exit-codes.md, 1)
RESOURCE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _stopping(e: BaseException) -> bool:
    """A write the machine refused: a full disk, a quota, a file size limit,
    or the search index's write failing (``SearchIndexError``, its cause
    one of those, or the index busy or damaged: derived data)."""
    from objstore import SearchIndexError
    return isinstance(e, SearchIndexError) or isinstance(e, OSError) and e.errno in RESOURCE_ERRNOS


def _fix(e: BaseException) -> str:
    if isinstance(e, OSError):
        return "raise the limit ('ulimit -f')" if e.errno == errno.EFBIG else "free some space"
    return "free some space (or raise a 'ulimit -f') so the search index can be written"


def _cause(e: BaseException) -> str:
    return unexpected_error(e)[0] if isinstance(e, OSError) else f"search index: {e}"


def carry_out(store, plan, forget, what, match, session):
    """``forget(store, what=, match=, session=, plan=)`` (the caller holds
    the store lock), its note (``objstore.core.unfinished``) written first
    and then the text rules of the values it withholds in their source
    turns (``rule_source_values``); returns its ``ForgetResult``.  A write failing with
    ``ENOSPC``, ``EDQUOT`` or ``EFBIG``, or the search index's write
    failing (``SearchIndexError``), part way is said by the state it left:
    noted as unfinished (raises ``MemError``, exit 1, naming the rerun);
    finished now from its tombstones (prints a warning and what was done,
    then exits 0 by ``SystemExit``); not finished from them yet (raises
    ``MemError``, exit 1: the next ``mem`` command that writes finishes it);
    or stopped before it changed anything (raises ``MemError``, exit 1).
    Any other error is raised as it is."""
    from objstore import MemError, check_digests_file, now_ms, rule_source_values, store_hash_key
    try:
        if plan.selector is not None:   # noted before the rules below, which are tombstones too (fresh43 F16)
            # ... after what stops a forget before any change: a damaged hash key (fresh39 F4), a folder for the
            # digests file (test40 T10); else the note stayed for a forget that never started
            store_hash_key(store.root)
            check_digests_file(store)
            store.unfinished.mark(*plan.selector, now_ms(), "forget")
        # the text rules of the values it withholds in their source turns, so a turn synced later
        # holding one is never served with it, even when this forget is stopped (test33b T4)
        rule_source_values(store, plan)
        return forget(store, what=what, match=match, session=session, plan=plan)
    except (OSError, MemError) as e:
        if not _stopping(e):
            raise
        cause = _cause(e)
        stopped = [s for s in store.unfinished.list() if plan.selector and (s.kind, s.selector) == tuple(plan.selector)]
        if stopped:
            raise MemError(f"the forget was stopped part way ({cause}) before it wrote all its tombstones: "
                           "it is noted as unfinished ('mem doctor' names it); what it removes may still be "
                           "stored", hint=f"{_fix(e)}, then run it again: {stopped[0].rerun()}") from e
        # (its note not written, nor settled by the journal's U line: it stopped at the note, fresh43 F16)
        if store.journal.is_empty() or plan.selector is not None and (
                store.unfinished.name(*plan.selector) not in store.journal.read().settled):
            raise MemError(f"the forget was stopped ({cause}) before it changed anything: nothing was forgotten",
                           hint=f"{_fix(e)}, then run it again") from e
        try:   # every tombstone is written: recovery finishes it (steps 2-5), now if the space allows
            store.recovery(store)
        except (OSError, MemError) as again:
            if not _stopping(again):
                raise
        if not store.journal.is_empty():
            raise MemError(f"the forget was stopped part way ({cause}) after it wrote all its tombstones: "
                           "it is noted in the index journal and not finished yet",
                           hint=f"{_fix(e)}: the next mem command that writes (or 'mem fsck --repair') "
                                "finishes it") from e
        click.echo("forgot what the preview named (finished from its tombstones after a failed write)")
        click.echo(f"warning: {cause} stopped the forget part way; it was finished at once from its "
                   "tombstones (nothing it removes is left)", err=True)
        raise SystemExit(0) from e
