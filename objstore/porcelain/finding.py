"""``mem doctor``'s finding: one problem or warning, what fixes it and the
files it concerns (``objstore.porcelain.doctor`` and its check modules).
Split from ``objstore.porcelain.doctor`` (its size) so a check module can
build one without importing the doctor."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem (``severity`` ``error``) or warning (``warning``).

    Attributes:
        check: ``store`` (its config cannot be read: ``diagnose_unopened``; a path of
            :data:`LAYOUT` of the other file type), ``permissions``, ``codec``, ``packs``,
            ``objects``, ``refs``, ``forget``, ``seal``, ``pull``,
            ``index``, ``config``, ``projects``, ``locks``, ``temps``, ``hooks``, ``cursors``, ``behind``,
            ``transcripts``, ``remotes``, ``derive``, ``capture`` (shell records or proxy batches in a spool).
        message: what is wrong.
        fix: the command that fixes it.
        paths: the files concerned (for ``--fix``), may be empty.
    """

    check: str
    severity: str
    message: str
    fix: str
    paths: tuple[str, ...] = ()
