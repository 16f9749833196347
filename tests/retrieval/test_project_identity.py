"""Issue 21 item 6: a project's identity is its full remote (or path), shown
by a readable name; same-named repositories never share facts or turns;
worktrees and subagents belong to their repository; --project replaces."""

from __future__ import annotations

import json
from pathlib import Path

from objstore.capture.transcript import project_of as _project
from objstore.memory import facts
from objstore.memory.gitident import identity_of
from objstore.memory.scope import project_aliases, register_project
from objstore.retrieval.context import render_context
from tests.hooks._util import asst, line, text, user


def git_repo(root: Path, url: str | None) -> Path:
    (root / ".git").mkdir(parents=True)
    cfg = "[core]\n\tbare = false\n"
    if url:
        cfg += f'[remote "origin"]\n\turl = {url}\n'
    (root / ".git" / "config").write_text(cfg)
    return root


def test_same_named_repositories_are_two_projects(store, tmp_path):
    acme = git_repo(tmp_path / "acme" / "api", "git@github.com:acme/api.git")
    globex = git_repo(tmp_path / "globex" / "api", "https://token123@github.com/Globex/api.git")
    assert identity_of(acme).id == "github.com/acme/api" and identity_of(globex).id == "github.com/globex/api"
    assert register_project(store, acme) == "api"
    assert register_project(store, globex) == "globex-api"
    assert register_project(store, acme) == "api"                 # names never change
    assert project_aliases(acme, store_root=store.root)[0] == "api"
    assert "api" not in project_aliases(globex, store_root=store.root)
    facts.remember(store, "project/api/db", "acme runs postgres")
    facts.remember(store, "project/globex-api/db", "globex runs mysql")
    mine = render_context(store, project_aliases(globex, store_root=store.root)).text
    assert "mysql" in mine and "postgres" not in mine
    theirs = render_context(store, project_aliases(acme, store_root=store.root)).text
    assert "postgres" in theirs and "mysql" not in theirs
    assert "token123" not in (store.root / "projects.json").read_text()


def test_turns_are_captured_under_the_identity_name(store, tmp_path, invoke):
    acme = git_repo(tmp_path / "acme" / "api", "git@github.com:acme/api.git")
    globex = git_repo(tmp_path / "globex" / "api", "git@github.com:globex/api.git")
    register_project(store, acme)
    t = tmp_path / "S-gx.jsonl"
    t.write_bytes(line(user("u1", "the quokka migration plan", sid="S-gx", cwd=str(globex)))
                  + line(asst("a1", "m1", [text("noted")], sid="S-gx", cwd=str(globex))))
    store.close()
    invoke("import", "claude-code", str(t))
    rows = invoke("sessions", "--json").json
    rows = rows if isinstance(rows, list) else rows["sessions"]
    assert [r["project"] for r in rows] == ["globex-api"]


def test_worktrees_and_subagents_belong_to_their_repository(tmp_path):
    main = git_repo(tmp_path / "checkout", None)
    wt_git = main / ".git" / "worktrees" / "agent-a1b2"
    wt_git.mkdir(parents=True)
    (wt_git / "commondir").write_text("../..\n")
    wt = main / ".claude" / "worktrees" / "agent-a1b2"
    wt.mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert project_aliases(wt, store_root=None) == ("checkout",)
    assert identity_of(wt).id == f"path:{main}"
    # a transcript read where the worktree no longer exists
    assert _project("/home/u/api/.claude/worktrees/agent-a1b2") == "api"
    assert _project("/home/u/api/src") == "src"


def test_project_option_replaces_the_working_directory(tmp_path, invoke, monkeypatch):
    repo = git_repo(tmp_path / "here", "git@github.com:acme/here.git")
    monkeypatch.chdir(repo)
    invoke("remember", "project/here/x", "local value")
    invoke("remember", "project/other/x", "other value")
    r = invoke("recall", "value", "--project", "other", "--json").json
    assert r["projects"] == ["other"]
    assert [h["key"] for h in r["hits"]] == ["project/other/x"]
    assert project_aliases(repo, override="other", store_root=None) == ("other",)


def _two_apis(store, tmp_path):
    acme = git_repo(tmp_path / "acme" / "api", "git@github.com:acme/api.git")
    globex = git_repo(tmp_path / "globex" / "api", "git@github.com:globex/api.git")
    assert register_project(store, acme) == "api" and register_project(store, globex) == "globex-api"
    facts.remember(store, "project/api/db", "acme runs postgres")
    return acme, globex


def test_a_damaged_registry_keeps_its_readable_entries(store, tmp_path):
    """Re-attack defect 4: a truncated projects.json was read as empty and the
    next project to start took the short name: globex saw acme's facts."""
    acme, globex = _two_apis(store, tmp_path)
    reg = store.root / "projects.json"
    good = reg.read_bytes()
    reg.write_bytes(good[:good.index(b"globex") + 20])         # the acme entry survives, globex's is cut
    assert register_project(store, globex) == "globex-api"     # not "api": acme's entry is still read
    assert project_aliases(acme, store_root=store.root)[0] == "api"
    assert "api" not in project_aliases(globex, store_root=store.root)
    assert reg.read_bytes() == good[:good.index(b"globex") + 20]   # never rewritten while damaged


def test_a_garbage_registry_never_hands_a_name_to_another_project(store, tmp_path, invoke, monkeypatch):
    acme, globex = _two_apis(store, tmp_path)
    reg = store.root / "projects.json"
    reg.write_bytes(b"\x00\xffgarbage{{")
    assert register_project(store, globex) == "globex-api"    # first after the damage: no short name
    assert project_aliases(globex, store_root=store.root) == ("globex-api",)
    mine = render_context(store, project_aliases(globex, store_root=store.root)).text
    assert "postgres" not in mine
    assert register_project(store, acme) == "acme-api"        # acme loses its name for now, no one takes it
    assert reg.read_bytes() == b"\x00\xffgarbage{{"
    store.close()
    monkeypatch.setenv("MEM_HOME", str(store.root))
    doc = invoke("doctor", "--json", exit_code=None)
    assert "projects.json" in doc.stdout and doc.exit_code != 0, doc
    f = invoke("fsck", exit_code=13)
    assert "project registry" in f.stdout


def test_a_statement_in_a_same_named_repository_goes_to_its_own_project(tmp_path):
    """test30 R9: "remember that …" typed in a second repository called
    ``api`` (registered ``globex-api``) is written under ``globex-api``, never
    as a new version of the first ``api``'s key, and the first repository's
    prompts do not get it.  Real ``mem hook`` processes."""
    import uuid

    from tests.hooks._util import payload, run_hook
    store = tmp_path / "store"
    acme = git_repo(tmp_path / "acme" / "api", "git@github.com:acme/api.git")
    globex = git_repo(tmp_path / "globex" / "api", "git@github.com:globex/api.git")

    def hook(event, cwd, **kw):
        rc, out, _err, _s = run_hook(store, payload(event, str(uuid.uuid4()), None, cwd=str(cwd), **kw))
        assert rc == 0
        return out
    for repo in (acme, globex):
        hook("SessionStart", repo, source="startup")
    hook("UserPromptSubmit", acme, prompt="remember that the db host is acme-db-1")
    out = hook("UserPromptSubmit", globex, prompt="remember that the db host is globex-db-9")
    assert "replaces" not in out
    with facts_store(store) as s:
        got = {k: facts.current(s, k).fact.body for k, _h in facts.list_keys(s) if "/remembered/" in k}
    assert got == {"project/api/remembered/db-host": "the db host is acme-db-1",
                   "project/globex-api/remembered/db-host": "the db host is globex-db-9"}, got
    said = hook("UserPromptSubmit", acme, prompt="which db host should I use?")
    assert "acme-db-1" in said and "globex-db-9" not in said


def facts_store(path):
    from objstore.memory.opening import open_store
    return open_store(path)


def test_mem_mcp_registers_its_working_directory_s_project(tmp_path):
    """test30c T13: ``mem mcp`` started in a repository names its default
    project by the registry and registers it, as the hooks do (unregistered,
    the name went to the next repository a hook met)."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO
    globex = git_repo(tmp_path / "globex" / "api", "git@github.com:globex/api.git")
    store = tmp_path / "store"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(store), PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-m", "cmds", "mcp"], cwd=globex, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    reg = json.loads((store / "projects.json").read_text())["projects"]
    assert reg == {"github.com/globex/api": "api"}
