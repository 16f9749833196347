"""Session 41 (fresh41 F4): ``index/facts`` or ``index/turns`` replaced by a
file gave an internal error (FileExistsError) on remember, search, reindex
and ``fsck --repair`` while fsck said ok; with ``index/turns`` a file,
captured turns were silently left unsearchable.  Now fsck names it (exit
13), ``fsck --repair`` and ``reindex`` replace it (the index is derived
data), a write warns and keeps the value.  Real stores, real ``mem``."""

from __future__ import annotations

import json
import shutil

import pytest

from objstore import remember
from objstore.memory.opening import open_store


@pytest.fixture
def base(tmp_path, mem):
    path = tmp_path / "base"
    with open_store(path, create=True) as s:
        remember(s, "project/api/db", "the postgres port is 5433")
    mem("--home", str(path), "reindex")
    return path


def _damaged(base, tmp_path, sub, name):
    path = tmp_path / name
    shutil.copytree(base, path, symlinks=True)
    shutil.rmtree(path / "index" / sub)
    (path / "index" / sub).write_text("junk\n")
    return str(path)


@pytest.mark.parametrize("sub", ["facts", "turns"])
def test_fsck_names_an_index_folder_replaced_by_a_file_and_repair_replaces_it(mem, base, tmp_path, sub):
    home = _damaged(base, tmp_path, sub, "f")
    out = mem("--home", home, "fsck", exit_code=13).stdout
    assert f"index/{sub} is a file where the index keeps a folder" in out, out
    assert "rebuilt the search index" in mem("--home", home, "fsck", "--repair").stdout
    mem("--home", home, "fsck")
    home = _damaged(base, tmp_path, sub, "r")
    mem("--home", home, "reindex")
    assert "5433" in mem("--home", home, "search", "postgres").stdout
    mem("--home", home, "fsck")


@pytest.mark.parametrize("sub", ["facts", "turns"])
def test_writes_and_capture_in_a_store_whose_index_folder_is_a_file(mem, base, tmp_path, sub):
    home = _damaged(base, tmp_path, sub, "w")
    r = mem("--home", home, "remember", "project/api/x", "a new value", exit_code=None)
    assert r.exit_code == 0 and "internal error" not in r.stderr, r.stderr
    assert mem("--home", home, "get", "project/api/x").stdout.strip() == "a new value"
    hook = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "hk-jrn41",
                       "prompt": "which port does the marmoset service use?", "cwd": str(tmp_path)})
    assert mem("--home", home, "hook", "claude-code", input=hook, env={"MEM_HOOK_FORK": "0"}).exit_code == 0
    r = mem("--home", home, "search", "marmoset", "--what", "turns", exit_code=None)
    assert r.exit_code in (0, 13) and "internal error" not in r.stderr, r.stderr
    if r.exit_code == 0:
        assert "marmoset" in r.stdout, r.stdout
    else:
        assert f"index/{sub}" in r.stderr, r.stderr
    mem("--home", home, "fsck", "--repair", exit_code=None)
    assert "marmoset" in mem("--home", home, "search", "marmoset", "--what", "turns").stdout
