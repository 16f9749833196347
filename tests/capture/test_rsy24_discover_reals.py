"""Lane rsy24: the transcript walk (``transcript.discover_files``) gives each
file's real path from the one ``realpath`` of its root (a catch-up took two
``realpath`` walks of every file, ~10 lstat calls each), and finds what
``os.walk`` found: a symlinked folder is not entered, a symlinked file is
kept under its real path, a file reached twice is yielded once.  Real files
and links in a temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

from objstore.capture import claude_code, codex
from objstore.capture.transcript import discover_files


def _old_walk(root: Path, is_transcript) -> list[Path]:
    """What discover_files yielded for a folder before: ``os.walk``, sorted, one per real path."""
    found = sorted((Path(d) / f for d, _s, fs in os.walk(root) for f in fs if is_transcript(f)),
                   key=lambda p: p.as_posix())
    seen, out = set(), []
    for p in found:
        if (k := os.path.realpath(p)) not in seen:
            seen.add(k)
            out.append(p)
    return out


def _tree(tmp_path: Path) -> Path:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "proj").mkdir(parents=True)
    (elsewhere / "proj" / "c0ffee00-0000-4000-8000-000000000001.jsonl").write_text("{}\n")
    (elsewhere / "lone.jsonl").write_text("{}\n")
    root = tmp_path / "real-root"
    sub = root / "-home-dev-app" / "c0ffee00-0000-4000-8000-000000000002" / "subagents"
    sub.mkdir(parents=True)
    (root / "-home-dev-app" / "c0ffee00-0000-4000-8000-000000000002.jsonl").write_text("{}\n")
    (sub / "agent-a1.jsonl").write_text("{}\n")
    (root / "-home-dev-app" / "notes.txt").write_text("x\n")
    (root / "-home-dev-app" / "journal.jsonl").write_text("{}\n")
    os.symlink(elsewhere / "proj", root / "-linked-folder")                    # not entered
    os.symlink(elsewhere / "lone.jsonl", root / "-home-dev-app" / "linked.jsonl")   # kept, real path elsewhere
    os.symlink(root / "-home-dev-app" / "c0ffee00-0000-4000-8000-000000000002.jsonl",
               root / "-home-dev-app" / "again.jsonl")                         # the same file twice: once
    os.symlink(tmp_path / "missing.jsonl", root / "-home-dev-app" / "dangling.jsonl")
    os.mkfifo(root / "-home-dev-app" / "fifo.jsonl")
    os.symlink(root, tmp_path / "via-link")
    return root


def test_the_walk_finds_what_os_walk_found_with_each_real_path(tmp_path):
    root = _tree(tmp_path)
    for given in (root, tmp_path / "via-link", Path(str(root) + "/"), tmp_path / "elsewhere" / ".." / "real-root"):
        for reader in (claude_code, codex):
            is_t = claude_code._is_transcript_name if reader is claude_code else (
                lambda n: n.startswith("rollout-") and n.endswith(".jsonl"))
            reals: dict[Path, str] = {}
            got = list(discover_files([given], is_t, reals))
            assert got == _old_walk(given, is_t), given
            assert list(reals) == got and all(reals[p] == os.path.realpath(p) for p in got), given
    reals = {}
    got = list(claude_code.discover([root], reals))
    names = {p.name for p in got}
    assert "linked.jsonl" in names and "agent-a1.jsonl" in names and "journal.jsonl" not in names
    assert not any("-linked-folder" in str(p) for p in got)
    assert reals[root / "-home-dev-app" / "linked.jsonl"] == str((tmp_path / "elsewhere" / "lone.jsonl").resolve())


def test_a_file_named_directly_gets_its_real_path_too(tmp_path):
    root = _tree(tmp_path)
    f = tmp_path / "via-link" / "-home-dev-app" / "linked.jsonl"
    reals: dict[Path, str] = {}
    assert list(claude_code.discover([f, root], reals)) == [f] + [
        p for p in _old_walk(root, claude_code._is_transcript_name) if os.path.realpath(p) != os.path.realpath(f)]
    assert reals[f] == os.path.realpath(f)
