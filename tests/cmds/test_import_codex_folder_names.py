"""``mem import codex DIR`` searches a folder for Codex's file names,
``rollout-*.jsonl``; a rollout under another name imports when named
directly, and a named folder holding none exits 2 saying why nothing was found
(test15 F; docs/exit-codes.md)."""

from __future__ import annotations

import shutil

from tests.conftest import REPO

ROLLOUT = next((REPO / "tests/data/codex/sessions").rglob("rollout-*.jsonl"))


def test_a_folder_without_rollout_names_says_why_and_the_file_named_directly_imports(mem, tmp_path, store_path):
    d = tmp_path / "exported"
    d.mkdir()
    renamed = d / "session-1.jsonl"
    shutil.copyfile(ROLLOUT, renamed)
    r = mem("import", "codex", str(d), exit_code=2)   # a named folder holding files, none a transcript's name
    assert "nothing stored" in r.stderr
    assert "rollout-*.jsonl" in r.stderr and "name a file to import it whatever its name" in r.stderr, r.stderr
    r = mem("import", "codex", str(renamed))
    assert "from 1 file" in r.stdout and "imported 0 new turns" not in r.stdout, r.stdout
