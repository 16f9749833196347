"""The read ledger (``cache/read-ledger-<harness>.json.z``) holds its JSON
compressed by zlib (lane sz22, issue 12: 0.15 MB -> 0.05 MB of the bench
store).  A store written before keeps an uncompressed ``.json`` ledger: it is
still read (nothing is read again) and replaced by the compressed one; a
forget still finds a forgotten path in the compressed one."""

from __future__ import annotations

import json
import shutil
import zlib
from importlib import resources
from pathlib import Path

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))
NAME = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"


def _cache_naming(store_path: Path, word: str) -> list[str]:
    """The files under cache/ that hold ``word``, as stored or inflated."""
    out = []
    for f in (store_path / "cache").rglob("*"):
        if not f.is_file():
            continue
        data = f.read_bytes()
        try:
            data += zlib.decompress(data)
        except zlib.error:
            pass
        if word.encode() in data:
            out.append(str(f))
    return out


def test_the_read_ledger_is_stored_compressed_and_reads_back(mem, tmp_path, store_path):
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    first = mem("import", "claude-code", str(root), "--json").json
    cache = store_path / "cache"
    assert not (cache / "read-ledger-claude-code.json").exists()
    raw = (cache / "read-ledger-claude-code.json.z").read_bytes()
    text = zlib.decompress(raw)
    ledger = json.loads(text)
    assert ledger["v"] == 1 and len(ledger["files"]) == first["files"] > 1
    assert len(raw) < len(text) // 2                            # paths share their folders
    again = mem("import", "claude-code", str(root), "--json").json
    assert again["files_unchanged"] == first["files"] and again["turns_seen"] == 0


def test_an_uncompressed_ledger_of_an_older_store_is_read_then_replaced(mem, tmp_path, store_path):
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    n = mem("import", "claude-code", str(root), "--json").json["files"]
    cache = store_path / "cache"
    new, old = cache / "read-ledger-claude-code.json.z", cache / "read-ledger-claude-code.json"
    old.write_bytes(zlib.decompress(new.read_bytes()))          # the ledger as mem wrote it before session 22
    new.unlink()
    r = mem("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == n and r["turns_seen"] == 0   # known as read: no file body read again
    assert new.exists() and not old.exists()
    assert len(json.loads(zlib.decompress(new.read_bytes()))["files"]) == n
    r = mem("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == n


def test_a_damaged_compressed_ledger_reads_every_file_again(mem, tmp_path, store_path):
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    n = mem("import", "claude-code", str(root), "--json").json["files"]
    new = store_path / "cache" / "read-ledger-claude-code.json.z"
    new.write_bytes(new.read_bytes()[:40])
    r = mem("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == 0 and r["files"] == n and r["turns_added"] == 0
    assert mem("import", "claude-code", str(root), "--json").json["files_unchanged"] == n


def test_forget_match_finds_a_path_in_the_compressed_ledger(mem, tmp_path, store_path):
    folder = tmp_path / "claude" / "projects" / "-home-dev-quokkaplum-grove-app"
    folder.mkdir(parents=True)
    (folder / NAME).write_text((SAMPLE / "-home-dev-acme-api" / NAME).read_text()
                               .replace("/home/dev/acme-api", "/home/dev/quokkaplum-grove/app"))
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    mem("import", "claude-code", env=env)
    assert str(store_path / "cache" / "read-ledger-claude-code.json.z") in _cache_naming(store_path, "quokkaplum")
    mem("forget", "--match", "quokkaplum-grove", "--yes", env=env)
    assert _cache_naming(store_path, "quokkaplum") == []
    mem("import", "claude-code", env=env)
    assert _cache_naming(store_path, "quokkaplum") == []
