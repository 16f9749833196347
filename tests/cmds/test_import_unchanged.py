"""Catch-up is O(what changed): an import skips files whose identity is the
one recorded at their last complete read, and still notices appends,
truncation, replacement by a copy with an old mtime and rewrites in place."""

from __future__ import annotations

import json
import os
import shutil
import time
from importlib import resources
from pathlib import Path

from objstore.core.fileid import identity

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))


def _tree(tmp_path) -> tuple[Path, Path]:
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    main = next(p for p in root.rglob("5f0c9a52-*.jsonl"))
    return root, main


def _record(uuid: str, text: str) -> str:
    return json.dumps({"type": "user", "uuid": uuid, "parentUuid": None, "sessionId": "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11",
                       "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/home/u/proj",
                       "message": {"role": "user", "content": text}}) + "\n"


def test_nothing_new_reads_nothing_and_changes_are_noticed(invoke, tmp_path):
    root, main = _tree(tmp_path)
    first = invoke("import", "claude-code", str(root), "--json").json
    n = first["files"]
    assert first["files_unchanged"] == 0 and first["turns_added"] > 10
    again = invoke("import", "claude-code", str(root), "--json").json
    assert (again["files_unchanged"], again["turns_seen"], again["lines"]) == (n, 0, 0)

    # an append: only that file is read, and its new turn is stored
    with open(main, "a", encoding="utf-8") as f:
        f.write(_record("u-new-1", "zebra crossing appended later"))
    r = invoke("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == n - 1 and r["turns_added"] == 1
    assert invoke("search", "zebra", "--json").json

    # replaced by a copy of the same size whose mtime is set back: a new inode
    st = os.stat(main)
    data = main.read_bytes().replace(b"zebra crossing", b"okapi crossing")
    tmp = main.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(tmp, main)
    r = invoke("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == n - 1 and r["turns_seen"] > 0

    # rewritten in place with the same bytes and size, mtime set back: ctime still moves
    st = os.stat(main)
    before = identity(main)
    time.sleep(0.05)
    with open(main, "r+b") as f:
        f.seek(st.st_size - 1)
        last = f.read(1)
        f.seek(st.st_size - 1)
        f.write(last)
    os.utime(main, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert identity(main) != before
    r = invoke("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == n - 1

    # shrunk: read again; what was stored stays stored
    lines = main.read_bytes().splitlines(keepends=True)
    main.write_bytes(b"".join(lines[:3]))
    r = invoke("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == n - 1 and r["turns_added"] == 0
    assert invoke("search", "zebra", "--json").json

    # --reread reads every file
    r = invoke("import", "claude-code", str(root), "--reread", "--json").json
    assert r["files_unchanged"] == 0 and r["turns_seen"] > 0 and r["turns_added"] == 0


def test_one_new_file_is_the_only_one_read(invoke, tmp_path):
    root, main = _tree(tmp_path)
    n = invoke("import", "claude-code", str(root), "--json").json["files"]
    new = main.parent / "0b9d7c1e-0000-4000-8000-000000000001.jsonl"
    new.write_text(_record("u-other-1", "a brand new session about walruses").replace(
        "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11", "0b9d7c1e-0000-4000-8000-000000000001"), encoding="utf-8")
    r = invoke("import", "claude-code", str(root), "--json").json
    assert r["files"] == n + 1 and r["files_unchanged"] == n and r["turns_added"] == 1
    assert r["sessions_new"] == 1


def test_a_change_of_capture_config_reads_every_file_again(invoke, tmp_path, store_path):
    root, _main = _tree(tmp_path)
    n = invoke("import", "claude-code", str(root), "--json").json["files"]
    (store_path / "config.toml").write_text('[capture]\nexclude = ["/nowhere/at/all"]\n', encoding="utf-8")
    r = invoke("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == 0 and r["files"] == n
