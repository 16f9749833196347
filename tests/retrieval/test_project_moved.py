"""test30c T16: a repository without a remote is known by its path, so
moving it (or renaming a parent folder) made it a new project: a new name,
nothing of its memory injected, doctor silent.  The registry now records
each such repository's birth (its git directory's ``description`` file's
time and inode: ``scope.repo_birth``), and a new path identity whose
repository is one registered at a folder that no longer holds it keeps that
name.  A copy beside the original, and another repository made anywhere
(the same folder name, the old folder reused), get a name of their own and
none of the memory.  Real git folders, real ``mem`` hook processes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from objstore.memory.scope import project_aliases, read_registry, register_project
from tests.retrieval.test_project_remote_change import _hook


def git_init(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True, timeout=60)
    return path


def test_a_moved_repository_keeps_its_name_and_memory(store, store_path, tmp_path, invoke):
    store.close()
    old = git_init(tmp_path / "mvr" / "old" / "api")
    _hook(store_path, "SessionStart", old)
    _hook(store_path, "UserPromptSubmit", old, "remember that the db host is pg-mv")
    (tmp_path / "mvr" / "old").rename(tmp_path / "mvr" / "new")          # a parent folder renamed
    new = tmp_path / "mvr" / "new" / "api"
    assert "pg-mv" in _hook(store_path, "SessionStart", new)
    said = _hook(store_path, "UserPromptSubmit", new, "remember that the cache is redis-mv")
    assert "project/api/remembered/cache" in said
    reg = json.loads((store_path / "projects.json").read_text())
    assert reg["projects"] == {f"path:{old}": "api", f"path:{new}": "api"}
    shutil.move(str(new), str(tmp_path / "elsewhere"))                   # moved again, under another name
    assert "redis-mv" in _hook(store_path, "SessionStart", tmp_path / "elsewhere")
    doc = invoke("doctor", "--json", exit_code=None).json
    assert not [f for f in doc["findings"] if f["check"] == "projects"]


def test_a_copy_or_another_repository_gets_its_own_name_and_no_memory(store, tmp_path):
    from objstore.memory import facts
    from objstore.retrieval.context import render_context
    api = git_init(tmp_path / "a" / "api")
    assert register_project(store, api) == "api"
    facts.remember(store, "project/api/db-host", "the db host is pg-first")
    copy = tmp_path / "b" / "api"
    shutil.copytree(api, copy, symlinks=True)         # copy2: the same times, another inode, the original there
    other = git_init(tmp_path / "c" / "api")          # another repository of the same folder name
    for d in (copy, other):
        name = register_project(store, d)
        assert name != "api" and "api" not in project_aliases(d, store_root=store.root)
        assert "pg-first" not in render_context(store, project_aliases(d, store_root=store.root)).text
    shutil.rmtree(api)
    git_init(api)                                     # the first folder reused for a new repository
    moved = git_init(tmp_path / "d" / "api")          # a new repository elsewhere: not the first one moved
    assert register_project(store, moved) != "api"


def test_an_older_registry_records_the_birth_on_first_use_then_follows_a_move(store, tmp_path):
    api = git_init(tmp_path / "x" / "api")
    (store.root / "projects.json").write_text(json.dumps({"v": 1, "projects": {f"path:{api}": "api"}}))
    assert register_project(store, api) == "api"
    assert f"path:{api}" in read_registry(store.root).births
    (tmp_path / "x").rename(tmp_path / "y")
    assert register_project(store, tmp_path / "y" / "api") == "api"


def test_fsck_repair_rebuilds_the_births(store_path, tmp_path, invoke):
    api = git_init(tmp_path / "r" / "api")
    _hook(store_path, "UserPromptSubmit", api, "remember that the db host is pg-rb")
    reg = store_path / "projects.json"
    before = json.loads(reg.read_text())
    assert list(before["births"]) == [f"path:{api}"]
    reg.write_text("garbage\n")
    invoke("fsck", "--repair", exit_code=None)
    assert json.loads(reg.read_text()) == before
    (tmp_path / "r").rename(tmp_path / "s")
    assert "pg-rb" in _hook(store_path, "SessionStart", tmp_path / "s" / "api")


def _remembered_repo(store_path, path):
    """A new repository at ``path`` whose session said "remember that the deploy host is kiwi-17"."""
    api = git_init(path)
    _hook(store_path, "SessionStart", api)
    _hook(store_path, "UserPromptSubmit", api, "remember that the deploy host is kiwi-17")
    return api


def test_starting_over_in_the_old_folder_merges_no_memory(store, store_path, tmp_path):
    """test31b V2 (a regression of the births carry): ``mv api api-old; git
    init api`` gave the moved repository the folder's name too, so the two
    repositories shared one project and a "remember that" in the new one
    replaced the old one's value.  Since session 32 (reg31's left-out) the
    new repository in the old folder gets a name of its own and none of the
    old memory; the moved one keeps its name and memory, in either order."""
    store.close()
    for first in ("new", "old"):
        w = tmp_path / f"p3-{first}"
        api = _remembered_repo(store_path, w / "api")
        old = w / "api-old"
        api.rename(old)
        git_init(api)                                            # start over in the old folder
        for d in ((api, old) if first == "new" else (old, api)):
            _hook(store_path, "SessionStart", d)
        assert "kiwi-17" in _hook(store_path, "UserPromptSubmit", old, "what is the deploy host?")
        said = _hook(store_path, "UserPromptSubmit", api, "remember that the deploy host is fig-99")
        assert "kiwi-17" not in said and f"project/{w.name}-api/remembered/deploy-host" in said
        assert "fig-99" not in _hook(store_path, "UserPromptSubmit", old, "what is the deploy host?")
        names = json.loads((store_path / "projects.json").read_text())["projects"]
        assert names[f"path:{api}"] == f"{w.name}-api" and names[f"path:{old}"] == "api"
        shutil.rmtree(w)
        (store_path / "projects.json").unlink()              # the next round starts from an empty registry


def test_the_rewrite_moved_into_the_old_folder_keeps_its_own_memory(store, store_path, tmp_path):
    """test31b V2's second shape: ``mv api api-legacy; mv api-rewrite api``:
    the folder ``api`` served the legacy repository's memory to the rewrite,
    whose own memory was never served again."""
    store.close()
    w = tmp_path / "p5"
    api = _remembered_repo(store_path, w / "api")
    rewrite = git_init(w / "api-rewrite")
    _hook(store_path, "UserPromptSubmit", rewrite, "remember that the deploy host is lime-22")
    api.rename(w / "api-legacy")
    rewrite.rename(api)
    said = _hook(store_path, "UserPromptSubmit", api, "what is the deploy host?")
    assert "lime-22" in said and "kiwi-17" not in said
    said = _hook(store_path, "UserPromptSubmit", w / "api-legacy", "what is the deploy host?")
    assert "kiwi-17" in said and "lime-22" not in said


def test_a_malformed_birth_is_no_repository_and_no_crash(store, store_path, tmp_path):
    """test31b V6: one hand-edited ``births`` value without two colons made
    every new repository's prompt hook drop "remember that" (ValueError)."""
    store.close()
    api = git_init(tmp_path / "bm" / "api")
    _hook(store_path, "SessionStart", api)
    p = store_path / "projects.json"
    doc = json.loads(p.read_text())
    doc["births"] = {k: "abc" for k in doc.get("births", {})} or {f"path:{api}": "abc"}
    p.write_text(json.dumps(doc))
    new = git_init(tmp_path / "bm" / "newrepo")
    _hook(store_path, "SessionStart", new)
    assert "project/newrepo/remembered/queue-host" in _hook(store_path, "UserPromptSubmit", new,
                                                            "remember that the queue host is mq-7")


def test_a_repository_once_opened_through_a_link_keeps_its_first_name_when_moved(store, store_path, tmp_path):
    """test31c W5: a repository opened once through a symlink, then moved,
    took the link's name (registered later, holding none of its memory)."""
    store.close()
    api = _remembered_repo(store_path, tmp_path / "p2" / "api")
    link = tmp_path / "p2" / "link"
    link.symlink_to(api)
    _hook(store_path, "UserPromptSubmit", link, "what is the deploy host?")
    moved = tmp_path / "p2" / "api-moved"
    api.rename(moved)
    assert "kiwi-17" in _hook(store_path, "UserPromptSubmit", moved, "what is the deploy host?")
    _hook(store_path, "SessionStart", moved)   # registers before it returns (a question's capture: in a child)
    assert json.loads((store_path / "projects.json").read_text())["projects"][f"path:{moved}"] == "api"
