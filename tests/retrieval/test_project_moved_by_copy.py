"""A repository keeps its name and memory however it moves: test31b V3 (a
clone moved to another folder, then ``git remote set-url``: an organisation
renamed) and test31c W6 (a move by copy, ``cp -a api api2 && rm -rf api``, or
``tar``).  A copy first seen while its original is still there keeps getting
a name of its own (reg31's rule).  Real git folders, real ``mem`` hook
processes, ``cp -a`` and ``tar`` themselves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from tests.hooks._util import wait_store_processes_gone
from tests.retrieval.test_project_moved import _remembered_repo
from tests.retrieval.test_project_remote_change import _hook, git, repo


def run(*cmd: str, cwd: Path | None = None) -> None:
    subprocess.run(list(cmd), check=True, capture_output=True, timeout=120, cwd=cwd)


def names(store_path: Path) -> dict:
    return json.loads((store_path / "projects.json").read_text())["projects"]


def test_a_clone_moved_then_its_remote_renamed_keeps_its_name_and_memory(store, store_path, tmp_path, invoke):
    store.close()
    w = tmp_path / "p4"
    api = repo(w / "api", "git@github.com:acme/api.git")
    _hook(store_path, "SessionStart", api)
    assert "project/api/remembered/db-host" in _hook(store_path, "UserPromptSubmit", api,
                                                     "remember that the db host is pg-acme-1")
    git("-C", str(api), "remote", "set-url", "origin", "git@github.com:acme-inc/api.git")   # in place
    assert "pg-acme-1" in _hook(store_path, "UserPromptSubmit", api, "what is the db host?")
    moved = w / "code-api"
    api.rename(moved)                                                                        # reorganised
    assert "pg-acme-1" in _hook(store_path, "UserPromptSubmit", moved, "what is the db host?")
    git("-C", str(moved), "remote", "set-url", "origin", "git@github.com:acme-corp/api.git")  # renamed again
    assert "pg-acme-1" in _hook(store_path, "UserPromptSubmit", moved, "what is the db host?")
    assert "project/api/remembered/cache" in _hook(store_path, "UserPromptSubmit", moved,
                                                   "remember that the cache is redis-4")
    assert names(store_path)["github.com/acme-corp/api"] == "api"
    doc = invoke("doctor", "--json", exit_code=None).json
    assert not [f for f in doc["findings"] if f["check"] == "projects"]


def test_a_move_by_copy_keeps_the_name_and_memory(store, store_path, tmp_path, invoke):
    store.close()
    w = tmp_path / "p1"
    api = _remembered_repo(store_path, w / "api")
    run("cp", "-a", str(api), str(w / "api2"))
    shutil.rmtree(api)                                          # cp -a api api2 && rm -rf api
    assert "kiwi-17" in _hook(store_path, "UserPromptSubmit", w / "api2", "what is the deploy host?")
    (w / "api3").mkdir()                                        # the same by tar, then rm -rf api2
    subprocess.run(f"tar cf - . | (cd {w / 'api3'} && tar xpf -)", shell=True, check=True, cwd=w / "api2",
                   capture_output=True, timeout=120)
    shutil.rmtree(w / "api2")
    assert "project/api/remembered/cache" in _hook(store_path, "UserPromptSubmit", w / "api3",
                                                   "remember that the cache is redis-9")
    assert "kiwi-17" in _hook(store_path, "SessionStart", w / "api3")
    assert names(store_path)[f"path:{w / 'api3'}"] == "api"
    doc = invoke("doctor", "--json", exit_code=None).json
    assert not [f for f in doc["findings"] if f["check"] == "projects"]


def test_a_copy_of_a_live_repository_or_a_new_one_gets_its_own_name(store, store_path, tmp_path):
    store.close()
    w = tmp_path / "p2"
    api = _remembered_repo(store_path, w / "api")
    run("cp", "-a", str(api), str(w / "api-copy"))              # the original is still there when it is first seen
    assert "kiwi-17" not in _hook(store_path, "UserPromptSubmit", w / "api-copy", "what is the deploy host?")
    wait_store_processes_gone(store_path)   # the question's turn, written by the hook's capture child, registers
    shutil.rmtree(api)                      # the copy: deleted later, the copy keeps its own name
    assert "kiwi-17" not in _hook(store_path, "UserPromptSubmit", w / "api-copy", "what is the deploy host?")
    other = repo(w / "other")                                   # a new repository (git init writes its times once)
    assert "kiwi-17" not in _hook(store_path, "UserPromptSubmit", other, "what is the deploy host?")
    for d in (w / "api-copy", other):                           # each stores under a name of its own
        said = _hook(store_path, "UserPromptSubmit", d, "remember that the queue host is mq-7")
        assert f"project/{d.name}/remembered/queue-host" in said


def test_a_clone_copied_then_its_remote_renamed_keeps_its_name(store, store_path, tmp_path):
    """V3 and W6 together: a clone moved by copy (another disk, a backup
    restored with its times), then its organisation renamed."""
    store.close()
    w = tmp_path / "p5"
    api = repo(w / "api", "git@github.com:acme/api.git")
    _hook(store_path, "UserPromptSubmit", api, "remember that the db host is pg-acme-5")
    run("cp", "-a", str(api), str(w / "api-new"))
    shutil.rmtree(api)
    git("-C", str(w / "api-new"), "remote", "set-url", "origin", "git@github.com:acme-corp/api.git")
    assert "pg-acme-5" in _hook(store_path, "UserPromptSubmit", w / "api-new", "what is the db host?")


def test_doctor_names_a_copy_whose_original_is_gone_and_its_fix_works(store, store_path, tmp_path, invoke):
    """The copy of a live repository keeps its own name after the original
    is deleted (the carry is decided when it is first seen); doctor says
    where the memory is and how to use it there, and the fix it gives works."""
    store.close()
    w = tmp_path / "p6"
    api = _remembered_repo(store_path, w / "api")
    copy = w / "api-copy"
    run("cp", "-a", str(api), str(copy))
    _hook(store_path, "SessionStart", copy)                      # first seen beside its original: its own name
    assert not [f for f in invoke("doctor", "--json", exit_code=None).json["findings"] if f["check"] == "projects"]
    shutil.rmtree(api)
    found = [f for f in invoke("doctor", "--json", exit_code=None).json["findings"] if f["check"] == "projects"]
    assert len(found) == 1 and str(copy) in found[0]["message"] and "'api'" in found[0]["message"]
    m = re.search(r'set "([^"]+)": "([^"]+)" in (\S+) while', found[0]["fix"])
    assert m and m.group(1) == f"path:{copy}" and m.group(2) == "api"
    p = Path(m.group(3))
    doc = json.loads(p.read_text())
    doc["projects"][m.group(1)] = m.group(2)                     # the fix doctor gives, by hand
    p.write_text(json.dumps(doc))
    assert "kiwi-17" in _hook(store_path, "UserPromptSubmit", copy, "what is the deploy host?")
    assert not [f for f in invoke("doctor", "--json", exit_code=None).json["findings"] if f["check"] == "projects"]


def test_a_repository_whose_files_were_touched_keeps_its_name(store, store_path, tmp_path):
    """test32b Y16 (a regression of the reused-folder rule): ``find api -exec
    touch {} +`` changes .git/description's time, not its inode: the same
    repository, not another one made in the old folder."""
    store.close()
    api = _remembered_repo(store_path, tmp_path / "rg4" / "api")
    run("find", str(api), "-exec", "touch", "{}", "+")
    assert "kiwi-17" in _hook(store_path, "SessionStart", api)
    assert "project/api/remembered/cache" in _hook(store_path, "UserPromptSubmit", api,
                                                   "remember that the cache is redis-9")
    assert names(store_path)[f"path:{api}"] == "api"
