"""test31c W12: silent drops around a damaged config and a deleted project
registry.  A "remember that" while ``config.toml`` cannot be read was
answered with nothing and stored nothing; a deleted ``projects.json`` passed
``mem fsck`` "ok" while a moved repository lost its name.  Real git folders,
real ``mem`` hook processes, the real CLI."""

from __future__ import annotations

import json
import re

from tests.retrieval.test_project_moved import _remembered_repo
from tests.retrieval.test_project_remote_change import _hook, repo


def test_a_remember_that_with_an_unreadable_config_is_answered_not_stored(store, store_path, tmp_path, invoke):
    store.close()
    api = repo(tmp_path / "c1" / "api")
    (store_path / "config.toml").write_text("[capture\nexclude = []\n")
    out = json.loads(_hook(store_path, "UserPromptSubmit", api, "remember that the deploy host is kiwi-17"))
    said = out["hookSpecificOutput"]["additionalContext"]
    assert "Not stored, though asked" in said and "config.toml" in said and "say it again" in said
    assert out["systemMessage"].startswith("mem: not remembered, though asked: ") and "config.toml" in out["systemMessage"]
    assert _hook(store_path, "UserPromptSubmit", api, "what is the deploy host?") == ""   # a question: as before
    (store_path / "config.toml").write_text("")
    assert not invoke("keys", "--json", exit_code=None).json                               # nothing was stored
    said = _hook(store_path, "UserPromptSubmit", api, "remember that the deploy host is kiwi-17")
    assert "Remembered as you asked" in said                                               # once fixed


def test_a_deleted_registry_is_said_by_fsck_and_rebuilt(store, store_path, tmp_path, invoke):
    store.close()
    api = _remembered_repo(store_path, tmp_path / "c2" / "api")
    moved = tmp_path / "c2" / "api-moved"
    api.rename(moved)
    assert "kiwi-17" in _hook(store_path, "UserPromptSubmit", moved, "what is the deploy host?")
    _hook(store_path, "SessionStart", moved)
    (store_path / "projects.json").unlink()
    got = invoke("fsck", exit_code=None)
    assert got.exit_code == 0 and re.search(r"warning: project registry: projects\.json is missing while the captured "
                                       r"sessions name the projects of \d+ folders?", got.stdout)
    invoke("fsck", "--repair", exit_code=None)
    assert json.loads((store_path / "projects.json").read_text())["projects"][f"path:{moved}"] == "api"
    assert "projects.json is missing" not in invoke("fsck", exit_code=None).stdout
    assert "kiwi-17" in _hook(store_path, "UserPromptSubmit", moved, "what is the deploy host?")


def test_a_store_without_sessions_and_registry_is_ok(store, invoke):
    store.close()
    assert "projects.json" not in invoke("fsck").stdout


def test_a_store_of_imported_sessions_only_has_no_registry_to_miss(store, tmp_path, invoke):
    """``mem import`` of transcripts from another machine (their folders are not here) registers no
    folder: a regression of the deleted-registry warning told such a store projects.json is missing
    (tests/cmds/test_forget_stopped.py's fsck said "warning")."""
    store.close()
    folder = tmp_path / "work" / "api"   # not made: the other machine's folder
    t = tmp_path / "projects" / "-work-api" / "s1.jsonl"
    t.parent.mkdir(parents=True)
    t.write_text(json.dumps({"type": "user", "sessionId": "s1", "uuid": "u1", "timestamp": "2026-11-01T10:00:00Z",
                             "cwd": str(folder), "message": {"role": "user", "content": "the deploy host is kiwi-17"}})
                 + "\n")
    invoke("import", "claude-code", str(tmp_path / "projects"))
    assert not (store.root / "projects.json").exists()
    got = invoke("fsck", exit_code=None)
    assert got.exit_code == 0 and "projects.json" not in got.stdout, got.stdout
