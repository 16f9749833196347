"""fresh5 findings on forget (notes/fresh5-attack.md 1, 3, 5, 6): each test
runs real ``mem`` processes on real stores and failed on the code before its
fix."""

from __future__ import annotations

from tests.hooks._util import hook_env, run_hook

PERSON = {"MEM_AGENT": "0"}   # the suite clears the harness markers (conftest.isolated_env)
AGENT = {"MEM_AGENT": "bot"}


# -- 1: mem import jsonl of an export made before a forget --------------------

def test_import_jsonl_honours_tombstones(mem, store_path, tmp_path):
    sid = "65545678-aaaa-bbbb-cccc-1234567890ac"
    mem("remember", "project/e/pw", "export canary gecko6161 secret", env=PERSON)
    mem("remember", "project/e/keep", "an unrelated value", env=PERSON)
    rc, _o, _e, _t = run_hook(store_path, {"hook_event_name": "UserPromptSubmit", "session_id": sid,
                                           "cwd": "/tmp", "prompt": "turn with gecko6161 inside"},
                              env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0
    assert sid in mem("sessions", "--json").stdout
    export = tmp_path / "before.jsonl"
    mem("export", "-o", str(export))
    mem("forget", "project/e/pw", "--yes", env=PERSON)
    mem("forget", "--session", sid[:8], "--yes", env=PERSON)
    mem("gc", "--prune=now")
    r = mem("import", "jsonl", str(export), env=PERSON)
    assert "skipped 2 refs" in r.stderr and "facts/project/e/pw" in r.stderr
    mem("get", "project/e/pw", exit_code=4)
    assert sid not in mem("sessions", "--json").stdout
    assert mem("get", "project/e/keep").stdout.strip() == "an unrelated value"
    mem("gc", "--prune=now")
    assert "gecko6161" not in mem("search", "gecko6161", exit_code=None).stdout


def test_import_jsonl_by_an_agent_refuses_a_forgotten_value(mem, tmp_path):
    home = ["--home", str(tmp_path / "ej3")]
    mem(*home, "init")
    mem(*home, "remember", "--trust", "agent_observed", "project/e/canary", "agent canary gecko7171 secret", env=PERSON)
    export = tmp_path / "ej3.jsonl"
    mem(*home, "export", "-o", str(export))
    mem(*home, "forget", "project/e/canary", "--yes", env=PERSON)
    mem(*home, "gc", "--prune=now")
    r = mem(*home, "import", "jsonl", str(export), env=AGENT, exit_code=6)
    assert "gecko7171" not in r.stderr
    mem(*home, "get", "project/e/canary", exit_code=4)
    # the same value under another key in a lower-trust export is not brought in either
    other = tmp_path / "other.jsonl"
    o = ["--home", str(tmp_path / "other")]
    mem(*o, "init")
    mem(*o, "remember", "--trust", "agent_observed", "project/x/copy", "agent canary gecko7171 secret", env=PERSON)
    mem(*o, "export", "-o", str(other))
    mem(*home, "import", "jsonl", str(other), env=AGENT, exit_code=6)
    r = mem(*home, "import", "jsonl", str(other), env=PERSON)
    assert "facts/project/x/copy" in r.stderr
    mem(*home, "get", "project/x/copy", exit_code=4)


# -- 3: sync spreads an offline machine's agent copy of a forgotten value ----

def test_sync_does_not_spread_an_agent_copy_of_a_forgotten_value(mem, tmp_path):
    remote = tmp_path / "remote1"
    remote.mkdir()
    key = tmp_path / "sync.key"
    a = ["--home", str(tmp_path / "a")]
    b = ["--home", str(tmp_path / "b")]
    value = "remote secret wombat9191 value"
    mem(*a, "init")
    mem(*a, "remote", "add", "origin", str(remote))
    mem(*a, "remember", "project/r/motto2", value, env=PERSON)
    mem(*a, "push")
    mem(*a, "remote", "key", "export", "-o", str(key))
    mem(*b, "clone", str(remote), "--key", str(key))
    mem(*b, "remember", "--trust", "agent_observed", "project/r/agentcopy", value, env=PERSON)
    mem(*a, "forget", "project/r/motto2", "--yes", env=PERSON)
    mem(*a, "gc", "--prune=now")
    mem(*a, "push")
    # written here, the same copy is refused
    mem(*a, "remember", "--trust", "agent_observed", "project/r/agentcopy", value, env=PERSON, exit_code=6)
    mem(*b, "push")
    mem(*a, "pull")
    mem(*a, "gc", "--prune=now")
    for home in (a, b):
        mem(*home, "get", "project/r/agentcopy", exit_code=4)
        assert "wombat9191" not in mem(*home, "keys").stdout
    c = ["--home", str(tmp_path / "c")]
    mem(*c, "clone", str(remote), "--key", str(key))
    mem(*c, "get", "project/r/agentcopy", exit_code=4)
    # a user_stated copy is the person's: it syncs
    mem(*b, "remember", "project/r/mine", value, env=PERSON)
    mem(*b, "push")
    mem(*a, "pull")
    assert mem(*a, "get", "project/r/mine").stdout.strip() == value


# -- 5 (+4): a remote whose manifest is lost ---------------------------------

def _age_packs(remote, seconds=3600):
    import os
    import time
    for p in (remote / "packs").rglob("*"):
        if p.is_file():
            os.utime(p, (time.time() - seconds, time.time() - seconds))


def _pushed_remote_without_manifest(mem, tmp_path, facts: dict[str, str]):
    """A store ``a`` holding ``facts``, pushed to a folder remote, and a copy
    of that remote (fresh mtimes) whose manifest is gone: (a's home args,
    the copy, the sync key file)."""
    import shutil
    remote, key = tmp_path / "remote1", tmp_path / "sync.key"
    remote.mkdir()
    a = ["--home", str(tmp_path / "a")]
    mem(*a, "init")
    mem(*a, "remote", "add", "origin", str(remote))
    for k, v in facts.items():
        mem(*a, "remember", k, v, env=PERSON)
    mem(*a, "push")
    mem(*a, "remote", "key", "export", "-o", str(key))
    rd3 = tmp_path / "rd3"
    shutil.copytree(remote, rd3)
    (rd3 / "manifest").unlink()
    return a, rd3, key


def test_a_remote_that_lost_its_manifest_is_refused_then_repaired(mem, tmp_path):
    a, rd3, key = _pushed_remote_without_manifest(
        mem, tmp_path, {"project/r/note": "the quokka4242 note", "project/r/other": "kept value"})
    _age_packs(rd3)
    r = mem("--home", str(tmp_path / "cl3"), "clone", str(rd3), "--key", str(key), exit_code=13)
    assert "manifest is missing" in r.stderr and "push --repair" in r.stderr
    assert not (tmp_path / "cl3").exists()
    mem(*a, "remote", "add", "r3", str(rd3))
    assert "manifest is missing" in mem(*a, "pull", "r3", exit_code=13).stderr
    assert "manifest is missing" in mem(*a, "push", "r3", exit_code=13).stderr
    # the machine that has the data repairs it; a forget then reaches the adopted packs
    mem(*a, "forget", "project/r/note", "--yes", env=PERSON)
    mem(*a, "push", "r3", "--repair")
    assert "r3" not in mem(*a, "scan", "quokka4242", exit_code=None).stdout
    mem("--home", str(tmp_path / "cl4"), "clone", str(rd3), "--key", str(key))
    assert mem("--home", str(tmp_path / "cl4"), "get", "project/r/other").stdout.strip() == "kept value"
    mem("--home", str(tmp_path / "cl4"), "get", "project/r/note", exit_code=4)


# -- 6: a damaged or missing store config -------------------------------------

def test_fsck_repair_rebuilds_a_damaged_or_missing_config(mem, tmp_path):
    home = ["--home", str(tmp_path / "sv")]
    mem(*home, "init")
    mem(*home, "remember", "project/h/a", "kept value", env=PERSON)
    (tmp_path / "sv" / "config").write_bytes(b"garbage")
    r = mem(*home, "get", "project/h/a", exit_code=13)
    assert "fsck --repair" in r.stderr
    r = mem(*home, "fsck", "--repair")
    assert "config was damaged" in r.stdout
    assert list((tmp_path / "sv").glob("config.damaged-*"))
    assert mem(*home, "get", "project/h/a").stdout.strip() == "kept value"
    (tmp_path / "sv" / "config").unlink()
    r = mem(*home, "get", "project/h/a", exit_code=13)   # as for a damaged config (session 12; was 10)
    assert "fsck --repair" in r.stderr
    assert "config was missing" in mem(*home, "fsck", "--repair").stdout
    assert mem(*home, "get", "project/h/a").stdout.strip() == "kept value"
    mem(*home, "remember", "project/h/a", "a new value", env=PERSON)
    assert mem(*home, "get", "project/h/a").stdout.strip() == "a new value"
    assert "ok" in mem(*home, "fsck").stdout


def test_a_remote_whose_young_packs_have_no_manifest_is_never_cloned_empty(mem, tmp_path):
    """fresh5-verify: within MANIFEST_LOST_AFTER_S of the packs' writing, a
    remote with packs and no manifest was read as empty (clone "up to date",
    exit 0) and `push --repair` adopted nothing, so a forget missed the pack."""
    # packs younger than MANIFEST_LOST_AFTER_S, past the wait for a first push in flight
    a, rd3, key = _pushed_remote_without_manifest(mem, tmp_path, {"project/r/note": "the quokka5151 note"})
    _age_packs(rd3, 30)
    r = mem("--home", str(tmp_path / "cl3"), "clone", str(rd3), "--key", str(key), exit_code=15)
    assert "no manifest yet" in r.stderr and "push --repair" in r.stderr
    mem(*a, "remote", "add", "r3", str(rd3))
    mem(*a, "forget", "project/r/note", "--yes", env=PERSON)
    mem(*a, "push", "r3", "--repair")     # adopts the young pack too, and the forget reaches it
    assert "r3" not in mem(*a, "scan", "quokka5151", exit_code=None).stdout
