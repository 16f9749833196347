"""Session 28 (pk28, issue 12 item 5): ``mem import`` publishes its turns
every ``PACK_ROLL`` objects, one pack each (113 packs of ~5 MB at a million
turns), and every later recall opened each of them.  At its end, when the
store holds more than ``MAX_PACKS`` packs (gc's rule), the import now merges
the small packs it wrote (``Store.merge_small``) into packs of up to
``PACK_TARGET_BYTES``; an older pack is not rewritten.

A kill at any point of the merge leaves every object readable: ``mem fsck``
exits 0, the store holds what an import that was not killed stores (``mem
export``), and ``mem gc`` leaves it ``ok``.  Real imports (the console entry
in a child process kills itself with SIGKILL at a fixed point, as
``test_import_killed_sessions.py`` does), real files."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.capture.test_import_killed_sessions import _export
from tests.conftest import REPO, gen_corpus, shared_hash_key

from objstore import open_store
from objstore.capture import importer
from objstore.core.fsck import fsck
from objstore.core.repack import MAX_PACKS
from objstore.index.genfiles import segment_sizes

ROLL = 1   # a publish, and a pack, after every file read


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    """Three corpora of one project each: eighteen sessions twice (a pack each file with ROLL: more than
    MAX_PACKS), then four."""
    root = tmp_path_factory.mktemp("merge")
    return tuple(gen_corpus(root / name, "--sessions", n, "--turns", str(10 * int(n)), "--projects", "1",
                            "--subagent-share", "0.5", "--seed", seed)
                 for name, n, seed in (("a", "18", "11"), ("b", "18", "12"), ("c", "4", "13")))


@pytest.fixture(scope="module")
def corpus(corpora):
    return corpora[0]


def _pack_names(root) -> set[str]:
    return {n[:-len(".pack")] for n in os.listdir(root / "objects" / "pack") if n.endswith(".pack")}


def test_an_import_of_many_packs_leaves_few_and_never_rewrites_an_older_one(mem, corpora, tmp_path, monkeypatch):
    first, rest, small = corpora
    # the same import in one publish: what the merged store must hold
    whole = open_store(tmp_path / "whole", create=True)
    shared_hash_key(tmp_path / "whole")
    try:
        importer.import_transcripts(whole, "claude-code", [first], workers=0)
        want = _export(mem, {"MEM_HOME": str(tmp_path / "whole")})
    finally:
        whole.close()
    monkeypatch.setattr(importer, "PACK_ROLL", ROLL)
    root = tmp_path / "store"
    store = open_store(root, create=True)
    shared_hash_key(root)
    try:
        r = importer.import_transcripts(store, "claude-code", [first], workers=0)
        assert r.errors == [] and r.index_error is None
        assert r.files > MAX_PACKS and r.turns_added   # as many publishes, each its pack: more than MAX_PACKS
        assert len(_pack_names(root)) == 1             # merged into one (far under PACK_TARGET_BYTES)
        assert _export(mem, {"MEM_HOME": str(root)}) == want                    # every turn, session and fact readable
        assert not list(store.packs.temp_files())
        assert fsck(store).ok
        old = _pack_names(root)
        r2 = importer.import_transcripts(store, "claude-code", [rest], workers=0)
        assert r2.errors == [] and r2.files > MAX_PACKS and r2.turns_added
        now = _pack_names(root)
        assert old < now and len(now) == 2            # the first import's pack kept as it is, the new ones merged
        # a few packs more, the store under MAX_PACKS: left as written (a merge would cost more than it saves)
        r3 = importer.import_transcripts(store, "claude-code", [small], workers=0)
        assert r3.errors == [] and 3 <= r3.files and len(now) + r3.files <= MAX_PACKS
        assert now < _pack_names(root) and len(_pack_names(root)) >= len(now) + 3
        assert fsck(store).ok
        hit = store.index.search("the", kinds=("turn",), limit=5)
        assert hit and all(store.get(h.id) for h in hit)   # found, and read from the merged packs
    finally:
        store.close()


def _segments(root) -> int:
    """The segments of the turns index's live generations (``meta.json`` of each)."""
    store = open_store(root)
    try:
        sub = store.index._subs["turn"]
        return sum(len(segment_sizes(sub.dir / name)) for _s, name in sub.manifest().live())
    finally:
        store.close()


def test_an_import_of_many_packs_merges_the_small_index_segments_as_gc_does(mem, corpus, tmp_path, monkeypatch):
    """Session 29 (scl29): the import that merged its packs also merges each turn shard's small
    segments (gc's ``merge_index_segments``): none is left for gc to merge, fewer segments than the
    same import leaves without that step, the same stored content and the same turns found."""
    monkeypatch.setattr(importer, "PACK_ROLL", ROLL)
    roots = {}
    for name, merge in (("kept", False), ("merged", True)):
        with monkeypatch.context() as m:
            if not merge:
                m.setattr(importer, "_merge_segments", lambda store, res: None)
            roots[name] = root = tmp_path / name
            store = open_store(root, create=True)
            shared_hash_key(root)
            try:
                r = importer.import_transcripts(store, "claude-code", [corpus], workers=0)
                assert r.errors == [] and r.index_error is None and r.files > MAX_PACKS
                plan = store.index.small_segment_plan()
                assert (plan == []) is merge, plan   # many publishes leave small segments; the import merged them
            finally:
                store.close()
    assert _segments(roots["merged"]) < _segments(roots["kept"])
    assert _export(mem, {"MEM_HOME": str(roots["merged"])}) == _export(mem, {"MEM_HOME": str(roots["kept"])})
    found = {}
    for name, root in roots.items():
        store = open_store(root)
        try:
            found[name] = [{h.id for h in store.index.search(q, kinds=("turn",), limit=1000)}
                           for q in ("the", "test", "error build")]
        finally:
            store.close()
    assert found["merged"] == found["kept"] and all(found["kept"])


# ``mem import claude-code DIR`` with a publish after every file, SIGKILLed by itself inside its merge:
# "finish" as its merged pack is about to be made durable, "remove" at the n-th old pack's removal
_KILLED_MERGE = textwrap.dedent('''
    import os, signal, sys
    where, corpus, nth, roll = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    from objstore.capture import importer
    from objstore.core.pack import PackSet
    from objstore.core.packwriter import PackWriter
    from objstore.core.store import Store
    importer.PACK_ROLL = roll
    state = {"merging": False, "calls": 0}
    merge = Store.merge_small
    def merge_small(self, packs):
        state["merging"] = True
        return merge(self, packs)
    Store.merge_small = merge_small
    def die_at(cls, name):
        real = getattr(cls, name)
        def wrapped(self, *a, **k):
            if state["merging"]:
                state["calls"] += 1
                if state["calls"] == nth:
                    os.kill(os.getpid(), signal.SIGKILL)
            return real(self, *a, **k)
        setattr(cls, name, wrapped)
    die_at(PackWriter if where == "finish" else PackSet, "finish" if where == "finish" else "remove_pack")
    from cmds.entry import entry
    sys.argv = ["mem", "import", "claude-code", corpus]
    entry()
''')


@pytest.mark.parametrize("where,nth", [("finish", 1), ("remove", 1), ("remove", 3)])
def test_an_import_killed_in_its_merge_loses_nothing(mem, store_path, corpus, tmp_path, where, nth):
    env = {"MEM_HOME": str(tmp_path / "whole")}
    mem("init", env=env)
    shared_hash_key(env["MEM_HOME"])
    mem("import", "claude-code", str(corpus), env=env)
    whole = _export(mem, env)
    mem("init")
    shared_hash_key(store_path)
    r = subprocess.run([sys.executable, "-c", _KILLED_MERGE, where, str(corpus), str(nth), str(ROLL)], cwd=REPO,
                       timeout=300, env={**os.environ, "PYTHONPATH": str(REPO), "MEM_HOME": str(store_path)},
                       capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL, r.stderr[-2000:]
    assert len(_pack_names(store_path)) > MAX_PACKS            # killed before the merge removed them all
    f = mem("fsck", exit_code=None)
    assert f.exit_code == 0 and "missing" not in f.stdout, f.stdout
    assert _export(mem) == whole                                 # every turn, session and ref readable
    mem("gc")                                                    # the temp files; the small packs merged
    assert mem("fsck").stdout.startswith("ok:")
    assert _export(mem) == whole
    mem("import", "claude-code", str(corpus))                    # nothing new: the same store
    assert _export(mem) == whole
