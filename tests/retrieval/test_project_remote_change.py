"""test30 R15: a repository first used without a remote keeps its project
name -- and so its facts and turns -- after ``git remote add`` and after
``git remote set-url``; a store registered before that fix reads the old
name as an alias, and ``mem doctor`` names the folder.  Real git folders,
real ``mem`` hook processes."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

from objstore.memory import facts
from objstore.memory.gitident import identity_of
from objstore.memory.scope import moved_projects, project_aliases, register_project
from objstore.retrieval.context import render_context
from tests.hooks._util import hook_env, run_hook_done, wait_store_processes_gone


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True, timeout=60)


def repo(path: Path, url: str | None = None) -> Path:
    path.mkdir(parents=True)
    git("init", "-q", str(path))
    if url:
        git("-C", str(path), "remote", "add", "origin", url)
    return path


def registry(store_path: Path) -> dict:
    return json.loads((store_path / "projects.json").read_text())


def test_remote_added_then_changed_keeps_the_name(store, tmp_path):
    api = repo(tmp_path / "g7" / "api")
    assert register_project(store, api) == "api"
    facts.remember(store, "project/api/db-host", "the db host is pg-local-1")
    git("-C", str(api), "remote", "add", "origin", "git@github.com:acme/api.git")
    assert identity_of(api).id == "github.com/acme/api"
    assert register_project(store, api) == "api"                  # carried over, not acme-api
    assert project_aliases(api, store_root=store.root)[0] == "api"
    assert "pg-local-1" in render_context(store, project_aliases(api, store_root=store.root)).text
    # the remote changed in place: the same repository (its birth, scope.repo_birth), so the name is carried
    # (test30c T19); a folder holding another repository now is not (test30c T20, the next test)
    git("-C", str(api), "remote", "set-url", "origin", "git@github.com:acme-corp/api.git")
    assert register_project(store, api) == "api"
    assert all(m.new_name == m.old_name for m in moved_projects(store.root))
    # the remote removed again: the path identity it started as, same name
    git("-C", str(api), "remote", "remove", "origin")
    assert register_project(store, api) == "api"


def test_a_folder_reused_for_another_repository_takes_no_name_and_no_memory(store, tmp_path):
    """test30c T20: a folder deleted and cloned again from another remote
    (a /workspace, a CI checkout) is another project, never the first
    one's name nor its facts."""
    import shutil
    d = repo(tmp_path / "work" / "api", "git@github.com:acme/api.git")
    assert register_project(store, d) == "api"
    facts.remember(store, "project/api/db-host", "the db host is acme-db-1")
    shutil.rmtree(d)
    repo(d, "git@github.com:globex/api.git")
    name = register_project(store, d)
    assert name != "api" and "api" not in project_aliases(d, store_root=store.root)
    assert "acme-db-1" not in render_context(store, project_aliases(d, store_root=store.root)).text
    # doctor names the folder, and says the first one's facts are not read there
    moved = [m for m in moved_projects(store.root) if m.folder == str(d)]
    assert moved and moved[0].new_id == "github.com/globex/api" and not moved[0].alias


def test_a_name_a_third_identity_holds_is_not_carried(store, tmp_path):
    api = repo(tmp_path / "a" / "api")
    other = repo(tmp_path / "b" / "api", "git@github.com:globex/api.git")
    # a registry an older mem wrote: the folder's path identity and globex both hold "api"
    (store.root / "projects.json").write_text(json.dumps(
        {"v": 1, "projects": {f"path:{api}": "api", "github.com/globex/api": "api"}}))
    git("-C", str(api), "remote", "add", "origin", "git@github.com:acme/api.git")
    assert register_project(store, api) == "acme-api"
    assert "api" not in project_aliases(api, store_root=store.root)   # globex's name is not read there
    assert register_project(store, other) == "api"


def test_a_store_from_before_reads_the_old_name_and_doctor_names_the_folder(store, tmp_path, invoke):
    api = repo(tmp_path / "g7" / "api", "git@github.com:acme/api.git")
    # registered before this fix: the remote identity got a name of its own
    (store.root / "projects.json").write_text(json.dumps(
        {"v": 1, "projects": {f"path:{api}": "api", "github.com/acme/api": "acme-api"}}))
    facts.remember(store, "project/api/db-host", "the db host is pg-local-1")
    names = project_aliases(api, store_root=store.root)
    assert names[0] == "acme-api" and "api" in names
    assert "pg-local-1" in render_context(store, names).text
    moved = moved_projects(store.root)
    assert [(m.folder, m.old_name, m.new_id, m.new_name) for m in moved] == \
        [(str(api), "api", "github.com/acme/api", "acme-api")]
    store.close()
    got = invoke("doctor", "--json", exit_code=None).json
    found = [f for f in got["findings"] if f["check"] == "projects"]
    assert len(found) == 1 and found[0]["severity"] == "warning"
    assert str(api) in found[0]["message"] and "'acme-api'" in found[0]["message"]


def test_doctor_says_nothing_when_the_name_was_carried(store, tmp_path, invoke):
    api = repo(tmp_path / "g7" / "api")
    register_project(store, api)
    git("-C", str(api), "remote", "add", "origin", "git@github.com:acme/api.git")
    register_project(store, api)
    store.close()
    got = invoke("doctor", "--json", exit_code=None).json
    assert not [f for f in got["findings"] if f["check"] == "projects"]


def _hook(store_path: Path, event: str, cwd: Path, prompt: str = "") -> str:
    data = {"hook_event_name": event, "session_id": str(uuid.uuid4()), "cwd": str(cwd), "prompt": prompt,
            "source": "startup", "transcript_path": "/nonexistent.jsonl"}
    rc, out, err, _ = run_hook_done(store_path, data, env=hook_env(store_path))
    assert rc == 0, err
    # a prompt's turn is written (and its folder registered) by the hook's detached capture child:
    # the caller's next step (a folder moved or deleted, the registry removed, fsck) comes after it
    wait_store_processes_gone(store_path)
    return out


def test_hooks_keep_injecting_after_git_remote_add(store, store_path, tmp_path):
    store.close()
    api = repo(tmp_path / "g7" / "api")
    _hook(store_path, "SessionStart", api)
    _hook(store_path, "UserPromptSubmit", api, "remember that the db host is pg-local-1")
    assert registry(store_path)["projects"] == {f"path:{api}": "api"}
    git("-C", str(api), "remote", "add", "origin", "git@github.com:acme/api.git")
    assert "pg-local-1" in _hook(store_path, "SessionStart", api)
    assert "pg-local-1" in _hook(store_path, "UserPromptSubmit", api, "which db host should I use?")
    assert registry(store_path)["projects"]["github.com/acme/api"] == "api"


def test_forget_match_drops_an_entry_by_its_recorded_folder(store, tmp_path):
    from objstore.memory.scope import forget_projects
    api = repo(tmp_path / "zanzibarfolder" / "api", "git@github.com:acme/api.git")
    other = repo(tmp_path / "b" / "web", "git@github.com:acme/web.git")
    register_project(store, api)
    register_project(store, other)
    assert forget_projects(store, lambda t: "zanzibarfolder" in t) == 1
    reg = registry(store.root)
    assert reg["projects"] == {"github.com/acme/web": "web"}
    assert "zanzibarfolder" not in (store.root / "projects.json").read_text()


def test_a_fork_layout_keeps_the_name_and_memory(store, store_path, tmp_path, invoke):
    """test31 U5: ``gh repo fork`` in a clone renames ``origin`` to ``upstream``
    and adds the fork as ``origin``: the folder's identity moves to the
    fork's URL.  The name and the memory stay (the same repository: its
    birth), in the hooks and the readers, and doctor says nothing false."""
    store.close()
    api = repo(tmp_path / "fk" / "api", "git@github.com:acme/api.git")
    _hook(store_path, "SessionStart", api)
    assert "project/api/remembered/db-host" in _hook(store_path, "UserPromptSubmit", api,
                                                     "remember that the db host is acme-db-1")
    git("-C", str(api), "remote", "rename", "origin", "upstream")
    git("-C", str(api), "remote", "add", "origin", "git@github.com:me/api.git")
    assert "acme-db-1" in _hook(store_path, "SessionStart", api)
    assert "acme-db-1" in _hook(store_path, "UserPromptSubmit", api, "which db host should I use?")
    assert "project/api/remembered/db-host" in _hook(store_path, "UserPromptSubmit", api,
                                                     "remember that the db host is acme-db-2")
    doc = invoke("doctor", "--json", exit_code=None).json
    assert not [f for f in doc["findings"] if f["check"] == "projects" and "still read there" in f["message"]]
