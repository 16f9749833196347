"""A generation directory that is removed is gone, though an open tantivy
handle of it reloads meanwhile (``genfiles.remove_generation``).

Every open ``tantivy.Index`` runs a reader whose reload (its own, or its
watcher thread's, up to ~0.5 s after a commit changed ``meta.json``)
creates ``.tantivy-meta.lock`` in the directory by its path, even in an
emptied one.  When a reload fell between ``shutil.rmtree``'s unlinks and
its final ``rmdir``, the directory stayed (``ignore_errors`` hid it) and a
forget reported ``fact: orphan generation dir …/gen-2`` (the flaky
``test_forget_of_a_version_merges_the_facts_index``, session 23: under load
the facts' forget takes the isolated merge, whose copy ``gen-2`` is written,
then removed).  Here that reload is made to happen at a fixed point, just
before ``rmdir`` of the directory itself.  Real stores, real tantivy."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from objstore.index.genbuild import link_generation
from objstore.index import genfiles
from objstore.memory.facts import remember
from objstore.memory.forget import forget

CANARY = "Quillbrask-Vantorel"


def _facts(store, n: int = 12):
    for i in range(n):
        remember(store, f"project/g/k{i}", f"note {i} about the runner cache and port {8100 + i}")
    sub = store.index._subs["fact"]
    assert sub.gen_dirs() == ["gen-1"]
    return sub


def _before_rmdir(monkeypatch, action) -> list[str]:
    """Run ``action(path)`` at every ``os.rmdir`` of a generation directory
    (``gen-<n>`` or ``gen-<n>.gone``), before it; returns the paths seen."""
    seen: list[str] = []
    rmdir = os.rmdir

    def hooked(path, *a, **kw):
        name = os.path.basename(os.fspath(path))
        if name.startswith("gen-") and not kw.get("dir_fd"):
            seen.append(os.fspath(path))
            action(Path(path))
        return rmdir(path, *a, **kw)
    monkeypatch.setattr(os, "rmdir", hooked)
    return seen


def test_a_reload_of_an_open_handle_during_the_removal_leaves_no_generation(store, monkeypatch):
    sub = _facts(store)
    with sub.locked():
        new, handle = link_generation(sub, "gen-1")   # an orphan, open as a purge's copy is
    assert sub.gen_dirs() == ["gen-1", new]

    def reload(_path: Path) -> None:   # what the handle's watcher thread does after a commit
        with contextlib.suppress(ValueError):   # (tantivy: the directory or its meta.json is gone)
            handle.reload()
    seen = _before_rmdir(monkeypatch, reload)
    with sub.locked():
        sub.remove_orphans({"gen-1"})
    assert seen                                        # the reload ran at the fixed point
    assert sub.gen_dirs() == ["gen-1"] and sub.gone_dirs() == []
    assert not (sub.dir / new).exists()
    assert store.index.verify_purged([]) == []


def test_a_lock_file_created_inside_during_the_removal_is_removed_by_the_next_pass(store, monkeypatch):
    # a reload that resolved the directory before the rename creates its lock file in the renamed one
    sub = _facts(store)
    with sub.locked():
        new, _handle = link_generation(sub, "gen-1")
    made: list[Path] = []

    def create_once(path: Path) -> None:
        if not made:
            made.append(path / ".tantivy-meta.lock")
            made[0].touch()
    _before_rmdir(monkeypatch, create_once)
    assert genfiles.remove_generation(sub.dir / new) is True
    assert made and not made[0].parent.exists() and sub.gen_dirs() == ["gen-1"] and sub.gone_dirs() == []


def test_a_removal_that_cannot_finish_is_reported_and_retried_by_the_next_write(store, monkeypatch):
    sub = _facts(store)
    with sub.locked():
        new, _handle = link_generation(sub, "gen-1")
    _before_rmdir(monkeypatch, lambda path: (path / ".tantivy-meta.lock").touch())
    assert genfiles.remove_generation(sub.dir / new) is False
    assert sub.gen_dirs() == ["gen-1"] and sub.gone_dirs() == [f"{new}.gone"]
    assert store.index.verify_purged([]) == [f"fact: orphan generation dir {sub.dir / (new + '.gone')}"]
    assert sub.next_gen_number() == int(new[4:]) + 1   # its number is not given again
    monkeypatch.undo()
    with sub.locked():
        sub.remove_orphans_of_current()
    assert sub.gone_dirs() == [] and sub.gen_dirs() == ["gen-1"]
    assert store.index.verify_purged([]) == []


def test_a_forget_whose_old_generation_is_reloaded_while_removed_reports_the_index_clean(store, monkeypatch):
    # the facts of a reindex in one large segment, a later fact alone in a small one: its forget
    # merges a copy of the small one (gen-2), publishes it and removes gen-1, which a reader's
    # reload (by the path it opened) reaches just before the directory itself is removed
    from objstore.retrieval.search import reindex
    for i in range(60):
        remember(store, f"project/s/k{i}", f"summary {i} of a sub-agent's work on the parser and its tests")
    reindex(store)
    remember(store, "project/s/late", f"the staging host is {CANARY} until friday")
    sub = store.index._subs["fact"]

    def reload_by_its_path(path: Path) -> None:   # tantivy's reload: O_CREAT of the lock file by path
        gen = path.with_name(path.name.removesuffix(".gone"))
        with contextlib.suppress(FileNotFoundError):
            (gen / ".tantivy-meta.lock").touch()
    seen = _before_rmdir(monkeypatch, reload_by_its_path)
    res = forget(store, match=CANARY)
    assert seen
    assert res.index_problems == []
    assert sub.gone_dirs() == [] and len(sub.gen_dirs()) == 1
