"""``mem import codex DIR`` searches a folder for Codex's file names,
``rollout-*.jsonl``; a rollout under another name imports when named
directly, and a folder holding none says why nothing was found (test15 F)."""

from __future__ import annotations

import shutil

from tests.conftest import REPO

ROLLOUT = next((REPO / "tests/data/codex/sessions").rglob("rollout-*.jsonl"))


def test_a_folder_without_rollout_names_says_why_and_the_file_named_directly_imports(mem, tmp_path, store_path):
    d = tmp_path / "exported"
    d.mkdir()
    renamed = d / "session-1.jsonl"
    shutil.copyfile(ROLLOUT, renamed)
    r = mem("import", "codex", str(d))
    assert "imported 0 new turns from 0 files" in r.stdout
    assert "rollout-*.jsonl" in r.stderr and "name a file to import it whatever its name" in r.stderr, r.stderr
    r = mem("import", "codex", str(renamed))
    assert "from 1 file" in r.stdout and "imported 0 new turns" not in r.stdout, r.stdout
