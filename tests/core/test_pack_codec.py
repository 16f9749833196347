"""Pack version 7 is opt-in (session 26, lane sz26b): a store writes
version 8 (DEFLATE blocks and a line table; 6 before session 31) unless its ``config.toml`` sets
``store.pack_codec = "zstd"``, and the zstd codec (``backports.zstd``, the
extra ``memvcs[zstd]``) is no core dependency.  Without the codec: a
default store works in full; a store holding version-7 packs is refused by
every reader with exit 14, naming the pack and ``pip install
'memvcs[zstd]'``, and nothing stored is changed; a store that asks for
zstd refuses to write (exit 14, nothing written) and ``mem config`` refuses
the setting (docs/format.md, "Packs"; docs/exit-codes.md).

The codec's absence is real: a ``mem`` subprocess whose ``sitecustomize``
(on PYTHONPATH) makes ``import backports.zstd`` and ``import
compression.zstd`` fail, as on a Python where the extra is not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.core.pack import Pack
from tests.conftest import REPO, gen_corpus

_BLOCKER = '''import sys


class _NoZstd:
    """Fail the import of the zstd codec, as where memvcs[zstd] is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name in ("backports.zstd", "compression.zstd"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoZstd())
'''

_HINT = "pip install 'memvcs[zstd]'"


@pytest.fixture
def no_zstd(tmp_path, mem) -> callable:
    """``mem`` as a real subprocess on a Python without the zstd codec."""
    d = tmp_path / "no-zstd"
    d.mkdir()
    (d / "sitecustomize.py").write_text(_BLOCKER)
    probe = subprocess.run([sys.executable, "-c", "from objstore.core import packzstd; print(packzstd.zstd)"],
                           env={**os.environ, "PYTHONPATH": str(d)}, cwd=REPO, capture_output=True, text=True,
                           timeout=60)
    assert probe.stdout.strip() == "None", probe  # the codec really does not import there

    def run(*args: str, exit_code: int | None = 0):
        return mem(*args, exit_code=exit_code, env={"PYTHONPATH": str(d)})
    return run


def _versions(store_path: Path) -> set[int]:
    return {Pack(i).version for i in (store_path / "objects" / "pack").glob("*.idx")}


def _stored(store_path: Path) -> dict[str, bytes]:
    """Every file under objects/ and refs/ with its bytes."""
    return {str(p.relative_to(store_path)): p.read_bytes()
            for top in ("objects", "refs") for p in sorted((store_path / top).rglob("*")) if p.is_file()}


@pytest.fixture
def corpus(tmp_path) -> Path:
    return gen_corpus(tmp_path / "corpus", "--sessions", "3", "--turns", "60", "--seed", "7")


def test_a_store_writes_version_8_by_default_and_without_the_codec(no_zstd, store_path, corpus):
    no_zstd("init")
    no_zstd("import", "claude-code", str(corpus))
    no_zstd("remember", "user/editor", "helix")
    no_zstd("gc", "--prune=now")
    assert _versions(store_path) == {8}
    assert not (store_path / "config.toml").exists() or "pack_codec" not in (store_path / "config.toml").read_text()
    assert "deflate" in no_zstd("config", "store.pack_codec").stdout
    assert len(no_zstd("sessions", "--json").json) >= 3
    assert no_zstd("fsck").stdout.startswith("ok:")
    assert no_zstd("get", "user/editor").stdout.strip() == "helix"


def test_a_store_that_asks_for_zstd_writes_version_7_and_reads_it_back(invoke, store_path, corpus):
    invoke("import", "claude-code", str(corpus))
    invoke("gc", "--prune=now")
    assert _versions(store_path) == {8}
    sessions = {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}
    invoke("config", "store.pack_codec", "zstd")
    assert '[store]\npack_codec = "zstd"' in (store_path / "config.toml").read_text()
    invoke("remember", "user/editor", "helix")
    invoke("gc", "--prune=now")  # the new objects go in version 7 beside the intact version-8 pack
    assert _versions(store_path) == {7, 8}
    invoke("config", "store.pack_codec", "deflate")
    invoke("forget", "user/editor", "--yes")
    invoke("remember", "user/editor", "kak")
    invoke("gc", "--prune=now")
    assert 8 in _versions(store_path)  # deflate again: new packs are the default version 8
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == sessions
    assert invoke("get", "user/editor").stdout.strip() == "kak"
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_version_7_store_without_the_codec_is_refused_and_nothing_changes(invoke, no_zstd, store_path, corpus):
    invoke("init")
    invoke("config", "store.pack_codec", "zstd")
    invoke("import", "claude-code", str(corpus))
    invoke("remember", "user/editor", "helix")
    invoke("gc", "--prune=now")
    assert _versions(store_path) == {7}
    sessions = {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}
    before = _stored(store_path)
    for args in (("sessions",), ("get", "user/editor"), ("recall", "editor"), ("search", "the"), ("fsck",),
                 ("fsck", "--repair"), ("gc", "--prune=now"), ("forget", "user/editor", "--yes")):
        r = no_zstd(*args, exit_code=14)
        out = r.stdout + r.stderr
        assert _HINT in out and "pack version 7" in out and "objects/pack/pack-" in out, (args, out)
        assert "damaged" not in out and "newer mem" not in out, (args, out)
    # doctor, where a person goes when every command exits 14, names it (test27 V10: "no problem found")
    r = no_zstd("doctor", "--json", exit_code=None)
    codec = [f for f in r.json["findings"] if f["check"] == "codec"]
    assert len(codec) == 1 and codec[0]["severity"] == "error" and "version 7" in codec[0]["message"], r.json
    assert _HINT in codec[0]["fix"]
    assert not [f for f in invoke("doctor", "--json", exit_code=None).json["findings"] if f["check"] == "codec"]
    assert _stored(store_path) == before  # nothing set aside, rewritten or removed
    assert not (store_path / "quarantine").exists()
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == sessions  # with the codec again
    assert invoke("get", "user/editor").stdout.strip() == "helix"


def test_asking_for_zstd_without_the_codec_is_refused_before_anything_is_written(no_zstd, store_path, corpus):
    no_zstd("init")
    r = no_zstd("config", "store.pack_codec", "zstd", exit_code=14)
    assert _HINT in r.stderr and "store.pack_codec" in r.stderr
    assert "zstd" not in ((store_path / "config.toml").read_text() if (store_path / "config.toml").exists() else "")
    (store_path / "config.toml").write_text('[store]\npack_codec = "zstd"\n')  # set by hand, or by a mem with it
    r = no_zstd("import", "claude-code", str(corpus), exit_code=14)
    assert _HINT in r.stderr and "config.toml" in r.stderr and "store.pack_codec deflate" in r.stderr
    assert not list((store_path / "objects").rglob("pack-*")) and not list((store_path / "objects").glob("??/*"))
    (store_path / "config.toml").write_text('[store]\npack_codec = "deflate"\n')
    no_zstd("import", "claude-code", str(corpus))
    assert _versions(store_path) == {8}


def test_a_version_7_bundle_without_the_codec_is_refused_by_the_remote_reader(tmp_path, no_zstd):
    """A pull or clone reads a remote's bundle with PackBytes: a version-7 one (a push of a mem that
    wrote version 7 to a remote; this mem pushes version 6) is exit 14 with the hint, not damage."""
    from objstore.core.packwriter import write_pack
    from tests.core.test_pack_v7 import _chain
    info = write_pack(tmp_path / "p", _chain(50), version=7)
    code = ("import sys; from objstore.core.packbytes import PackBytes; from objstore.core.errors import CodecMissing\n"
            "try:\n    PackBytes(open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read())\n"
            "except CodecMissing as e:\n    print(e.exit_code, e.message, e.hint)")
    d = tmp_path / "no-zstd"
    r = subprocess.run([sys.executable, "-c", code, str(info.pack_path), str(info.idx_path)], cwd=REPO,
                       env={**os.environ, "PYTHONPATH": str(d)}, capture_output=True, text=True, timeout=60)
    assert r.stdout.startswith("14 pack bundle: pack") and _HINT in r.stdout, r
