"""Project scope from the working directory: git remote, top folder, override."""

from __future__ import annotations

from pathlib import Path

import pytest

from objstore.core.refs import validate_key
from objstore.memory.gitident import clean_name, repo_name_from_url
from objstore.memory.scope import applies, key_project, project_aliases, project_of


def git_repo(root: Path, url: str | None) -> Path:
    (root / ".git").mkdir(parents=True)
    cfg = "[core]\n\tbare = false\n"
    if url:
        cfg += '[remote "upstream"]\n\turl = git@example.com:other/upstream-name.git\n'
        cfg += f'[remote "origin"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
    (root / ".git" / "config").write_text(cfg)
    return root


@pytest.mark.parametrize("url, name", [
    ("https://github.com/acme/billing-api.git", "billing-api"),
    ("git@github.com:acme/billing-api.git", "billing-api"),
    ("ssh://git@host:22/acme/billing-api", "billing-api"),
    ("/srv/git/billing-api.git/", "billing-api"),
    ("file:///srv/git/.hidden.git", "hidden"),
    ("", ""),
])
def test_repo_name_from_url(url, name):
    assert repo_name_from_url(url) == name


def test_project_from_git_remote_in_a_subdirectory(tmp_path):
    repo = git_repo(tmp_path / "checkout-folder", "https://github.com/acme/billing-api.git")
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    assert project_of(sub) == "billing-api"
    assert project_aliases(sub, store_root=None) == ("billing-api", "checkout-folder")  # a subfolder is not a project (issue 21)


def test_project_from_top_folder_without_remote(tmp_path):
    repo = git_repo(tmp_path / "webapp", None)
    (repo / "lib").mkdir()
    assert project_of(repo / "lib") == "webapp"
    assert project_of(repo) == "webapp"


def test_project_of_a_plain_directory_and_the_override(tmp_path):
    d = tmp_path / "scratch"
    d.mkdir()
    assert project_of(d) == "scratch"
    assert project_of(d, override="Billing") == "Billing"
    assert project_aliases(d, override="billing", store_root=None)[0] == "billing"
    assert project_of(None) == "" and project_aliases(None, store_root=None) == ()
    assert project_of("/") == ""


def test_worktree_git_file_uses_the_common_config(tmp_path):
    main = git_repo(tmp_path / "main-checkout", "git@github.com:acme/api.git")
    wt_git = main / ".git" / "worktrees" / "feature"
    wt_git.mkdir(parents=True)
    (wt_git / "commondir").write_text("../..\n")
    wt = tmp_path / "feature-tree"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert project_of(wt) == "api"


def test_names_are_usable_as_key_segments():
    assert clean_name("  .hidden ") == "hidden"
    assert clean_name("a/b") == "a-b"
    assert clean_name("x.lock") == "x"
    assert clean_name("bad\x01") == ""
    # issue 21 (re-attack item 7): '@' separates KEY@vN, so a folder 'svc@v2' could hold no fact
    assert clean_name("svc@v2") == "svc-v2" and clean_name("a@{1}") == "a-{1}"
    assert clean_name("zero\u200bwidth") == "" and clean_name("Caf\u0065\u0301") == "Caf\u00e9"
    assert len(clean_name("x" * 400).encode()) <= 240
    for name in ("svc@v2", "a..b", ".x.lock", "é" * 200, "A" * 100):
        n = clean_name(name)
        assert n and validate_key(f"project/{n}/port")


def test_a_name_an_older_mem_registered_with_an_at_is_read_as_a_key_segment(tmp_path):
    import json
    proj = tmp_path / "svc@v2"
    proj.mkdir()
    store = tmp_path / "store"
    store.mkdir()
    (store / "projects.json").write_text(json.dumps({"v": 1, "projects": {f"path:{proj}": "svc@v2"}}))
    assert project_of(proj, store_root=store) == "svc-v2"
    assert "svc@v2" in project_aliases(proj, store_root=store)   # its old turns are still found
    assert project_of(proj) == "svc-v2"


def test_which_facts_apply():
    assert key_project("project/api/db/port") == "api"
    assert key_project("user/editor") is None
    assert applies("user/editor", ("api",)) and applies("global/tz", ())
    assert applies("project/api/db", ("api", "api-folder"))
    assert not applies("project/billing/db", ("api",))
    assert applies("project/billing/db", None)
