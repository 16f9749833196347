"""test32b Y17, Z3, Y16 and Y11: one project per repository, whatever path
reaches it.  A repository reached through a symlinked path was a second
project (the hook's logical ``cwd`` and ``mem``'s physical one disagreed); a
repository moved, used, then given its first remote became a new project;
``sed -i`` on ``.git/description`` renamed the project; a deleted
``projects.json`` made anew by the next hook left a moved repository's
memory cut off while ``mem fsck`` said "ok".  Real git folders, real
``sed``, real ``mem`` hook processes, the real CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from objstore.memory import facts
from objstore.memory.scope import project_aliases, read_registry, register_project
from objstore.retrieval.context import render_context
from tests.retrieval.test_project_moved import _remembered_repo, git_init
from tests.retrieval.test_project_remote_change import _hook, git


def _registry(store_path: Path) -> dict:
    return json.loads((store_path / "projects.json").read_text())


def test_a_repository_reached_through_a_symlink_is_one_project(store, store_path, tmp_path):
    """Y17: ``ln -s ~/src/app ~/app; cd ~/app``: the hook's cwd is the link's path."""
    store.close()
    real = git_init(tmp_path / "src" / "app")
    link = tmp_path / "app"
    link.symlink_to(real)
    _hook(store_path, "SessionStart", link)
    assert "project/app/remembered/deploy-host" in _hook(store_path, "UserPromptSubmit", link,
                                                         "remember that the deploy host is kiwi-17")
    assert "kiwi-17" in _hook(store_path, "UserPromptSubmit", real, "what is the deploy host?")
    _hook(store_path, "SessionStart", real)
    assert _registry(store_path)["projects"] == {f"path:{real}": "app"}
    remote = git_init(tmp_path / "src" / "web")          # with a remote too: its folder is the real one
    git("-C", str(remote), "remote", "add", "origin", "git@github.com:acme/web.git")
    (tmp_path / "web").symlink_to(remote)
    _hook(store_path, "SessionStart", tmp_path / "web")
    assert _registry(store_path)["folders"] == {"github.com/acme/web": str(remote)}


def test_a_store_with_a_symlink_entry_keeps_its_memory(store, tmp_path):
    """Y17, older stores: the link's path registered as a project of its own
    (a second name, or the only one) still finds the memory stored under it."""
    real = git_init(tmp_path / "src" / "app")
    link = tmp_path / "app"
    link.symlink_to(real)
    # only the link's path registered (the person always used it): the real path takes its name
    (store.root / "projects.json").write_text(json.dumps({"v": 1, "projects": {f"path:{link}": "app"}}))
    facts.remember(store, "project/app/db-host", "the db host is pg-link-1")
    for d in (link, real):
        assert project_aliases(d, store_root=store.root)[0] == "app"
        assert "pg-link-1" in render_context(store, project_aliases(d, store_root=store.root)).text
    assert register_project(store, real) == "app"
    # both registered, as two projects (the link's with its birth: the same repository's)
    (store.root / "projects.json").unlink()
    assert register_project(store, real) == "app"
    r = read_registry(store.root)
    births = {**r.births, f"path:{link}": r.births[f"path:{real}"]}
    (store.root / "projects.json").write_text(json.dumps({"v": 1, "projects": {**r.projects, f"path:{link}": "tmp-app"},
                                                          "births": births}))
    facts.remember(store, "project/tmp-app/cache-host", "the cache is redis-link-2")
    for d in (link, real):
        names = project_aliases(d, store_root=store.root)
        assert names[0] == "app" and "tmp-app" in names
        assert "redis-link-2" in render_context(store, names).text


def test_a_moved_repository_used_then_given_a_remote_keeps_its_name(store, store_path, tmp_path, invoke):
    """Z3: moved, used at its new folder (the name carried), then its first remote."""
    store.close()
    api = _remembered_repo(store_path, tmp_path / "z3" / "old" / "api")
    moved = tmp_path / "z3" / "new" / "api2"
    moved.parent.mkdir()
    shutil.move(str(api), str(moved))
    assert "kiwi-17" in _hook(store_path, "SessionStart", moved)
    git("-C", str(moved), "remote", "add", "origin", "git@github.com:acme/web.git")
    assert "kiwi-17" in _hook(store_path, "SessionStart", moved)
    assert _registry(store_path)["projects"]["github.com/acme/web"] == "api"
    doc = invoke("doctor", "--json", exit_code=None).json
    assert not [f for f in doc["findings"] if f["check"] == "projects"], doc["findings"]


def test_a_rewritten_description_does_not_rename_the_project(store, store_path, tmp_path):
    """Y16 rest: ``sed -i`` writes .git/description anew (another inode and
    time); a new repository made in the folder is still another project."""
    store.close()
    api = _remembered_repo(store_path, tmp_path / "y16" / "api")
    subprocess.run(["sed", "-i", "s/Unnamed/Named/", str(api / ".git" / "description")], check=True, timeout=60)
    assert "kiwi-17" in _hook(store_path, "SessionStart", api)
    assert _registry(store_path)["projects"] == {f"path:{api}": "api"}
    shutil.rmtree(api / ".git")
    subprocess.run(["git", "init", "-q", str(api)], check=True, capture_output=True, timeout=60)
    assert "kiwi-17" not in _hook(store_path, "SessionStart", api)
    assert _registry(store_path)["projects"][f"path:{api}"] != "api"


def test_a_registry_made_anew_after_its_deletion_is_said(store, store_path, tmp_path, invoke):
    """Y11: deleted, then made again by the next hook in a moved repository
    (which took its new folder's name): fsck and doctor name the cut-off
    project and how to give it back."""
    store.close()
    api = _remembered_repo(store_path, tmp_path / "y11" / "api")
    (store_path / "projects.json").unlink()
    moved = tmp_path / "y11" / "api-v2"
    api.rename(moved)
    _hook(store_path, "SessionStart", moved)
    assert _registry(store_path)["projects"] == {f"path:{moved}": "api-v2"}
    got = invoke("fsck", exit_code=None)
    assert got.exit_code == 0
    assert "no entry names project 'api'" in got.stdout and f"captured in {api}" in got.stdout, got.stdout
    assert '"<identity>": "api"' in got.stdout
    doc = invoke("doctor", "--json", exit_code=None).json
    assert [f for f in doc["findings"] if f["check"] == "projects" and "'api'" in f["message"]], doc["findings"]
    reg = _registry(store_path)
    reg["projects"][f"path:{moved}"] = "api"           # the fix said
    (store_path / "projects.json").write_text(json.dumps(reg))
    assert "no entry names" not in invoke("fsck", exit_code=None).stdout
    assert "kiwi-17" in _hook(store_path, "SessionStart", moved)


def _clone(up: Path, url: str, dest: Path) -> Path:
    """``git clone url dest``, the URL's ``git@github.com:acme/`` served by the local folder ``up``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "-c", f"url.{up}/.insteadOf=git@github.com:acme/", "clone", "-q", url, str(dest)],
                   check=True, capture_output=True, timeout=60)
    return dest


def test_a_second_clone_moved_then_given_another_remote_keeps_its_name(store, store_path, tmp_path):
    """reg32's left-out (test31b V3 with two clones of one remote): only the
    first clone's folder is recorded, so the second, moved and then ``git
    remote set-url`` (the organisation renamed), became a new project."""
    store.close()
    up = tmp_path / "up"
    src = git_init(up / "seed")
    git("-C", str(src), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init")
    git("clone", "-q", "--bare", str(src), str(up / "api.git"))
    first = _clone(up, "git@github.com:acme/api.git", tmp_path / "v3" / "a" / "api")
    second = _clone(up, "git@github.com:acme/api.git", tmp_path / "v3" / "b" / "api")
    _hook(store_path, "SessionStart", first)
    _hook(store_path, "UserPromptSubmit", first, "remember that the deploy host is kiwi-17")
    assert "kiwi-17" in _hook(store_path, "SessionStart", second)          # one remote: one project
    moved = tmp_path / "v3" / "c" / "api"
    moved.parent.mkdir()
    second.rename(moved)
    git("-C", str(moved), "remote", "set-url", "origin", "git@github.com:acme-corp/api.git")
    assert "kiwi-17" in _hook(store_path, "SessionStart", moved)
    assert _registry(store_path)["projects"]["github.com/acme-corp/api"] == "api"
    # a clone given another repository's remote (a template started anew) is not carried
    tpl = _clone(up, "git@github.com:acme/api.git", tmp_path / "v3" / "d" / "shop")
    git("-C", str(tpl), "remote", "set-url", "origin", "git@github.com:acme/shop.git")
    assert "kiwi-17" not in _hook(store_path, "SessionStart", tpl)
    assert _registry(store_path)["projects"]["github.com/acme/shop"] == "shop"
