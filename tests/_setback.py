"""The set-back ref the ref40/set41/set41b tests start from: a synced
folder's older copy of a ref file put back over the newer one."""

from __future__ import annotations

import shutil


def set_back(mem, store_path, tmp_path, key, values, keep=2, ns="facts", extra=()):
    """``mem remember key VALUE`` for each of ``values`` in turn (with
    ``extra`` arguments), then put back the ref file as it was after the
    first ``keep`` writes: the ref names v``keep`` while its reflog's last
    move names v``len(values)``.  Returns the ref file's path."""
    ref = store_path / "refs" / ns / key
    for i, value in enumerate(values, 1):
        mem("remember", key, value, *extra)
        if i == keep:
            shutil.copy(ref, tmp_path / "old-ref")
    shutil.copy(tmp_path / "old-ref", ref)
    return ref
