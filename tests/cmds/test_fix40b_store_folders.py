"""fresh40 F4, F5, F6, F7, F11: a store folder replaced by a file, through
real ``mem`` processes on real store folders.  Each refusal names the
folder (exit 13), and ``mem fsck --repair`` loses nothing already stored:
session refs come back from their reflogs (F6: they were quarantined and a
later ``gc`` deleted the turns), a healthy config stays as it is (F5), and
``cache/`` (derived data) is set aside and made again (F4)."""

from __future__ import annotations

import shutil

from tests.hooks._util import payload, run_hook_done, wait_store_processes_gone

S1 = "40b40b40-1111-2222-3333-444444444444"
S2 = "40b40b40-5555-6666-7777-888888888888"


def _prompt(store_path, cwd, sid: str, text: str) -> None:
    rc, _o, err, _t = run_hook_done(store_path, payload("UserPromptSubmit", sid, None, cwd=str(cwd), prompt=text))
    assert rc == 0, err
    wait_store_processes_gone(store_path)


def _sessions(mem, home) -> dict[str, int]:
    return {s["id"]: s["turns"] for s in mem("--home", str(home), "sessions", "--json").json}


def test_refs_sessions_replaced_by_a_file_restores_the_sessions_and_gc_keeps_the_turns(mem, store_path, tmp_path):
    api = tmp_path / "api"
    api.mkdir()
    for sid in (S1, S2):
        _prompt(store_path, api, sid, f"the wombat plan {sid[-4:]} one")
        _prompt(store_path, api, sid, f"the wombat plan {sid[-4:]} two")
    before = _sessions(mem, store_path)
    assert before == {S1: 2, S2: 2}, before
    h = ("--home", str(store_path))
    shutil.rmtree(store_path / "refs" / "sessions")
    (store_path / "refs" / "sessions").write_text("x\n")
    for args in (("sessions",), ("fsck",)):
        r = mem(*h, *args, exit_code=13)
        assert "refs/sessions is a file, not a folder" in r.stderr, (args, r.stderr)
    r = mem(*h, "fsck", "--repair")
    assert "refs/sessions is a file, not a folder: set it aside" in r.stdout, r.stdout
    assert _sessions(mem, store_path) == before
    assert mem(*h, "fsck").stdout.startswith("ok:")
    mem(*h, "gc", "--prune=now")
    assert _sessions(mem, store_path) == before
    assert "wombat" in mem(*h, "search", "wombat").stdout


def test_cache_replaced_by_a_file_is_named_and_fsck_repair_makes_it_again(mem, store_path):
    h = ("--home", str(store_path))
    mem(*h, "remember", "project/api/db", "postgres 16")
    shutil.rmtree(store_path / "cache", ignore_errors=True)
    (store_path / "cache").write_text("x\n")
    for args in (("context", "--project", "api"), ("doctor", "--fix"), ("fsck",), ("search", "postgres")):
        r = mem(*h, *args, exit_code=None)
        assert "internal error" not in r.stderr, (args, r.stderr)
        assert r.exit_code in (1, 13) and "cache" in r.stderr + r.stdout, (args, r.exit_code, r.stderr, r.stdout)
    assert "cache is a file, not a folder" in mem(*h, "fsck", exit_code=13).stderr
    r = mem(*h, "doctor", exit_code=1)
    assert "mem fsck --repair" in r.stdout + r.stderr
    r = mem(*h, "fsck", "--repair")
    assert "cache is a file, not a folder: set it aside as quarantine/" in r.stdout, r.stdout
    assert (store_path / "cache").is_dir()
    assert mem(*h, "get", "project/api/db").stdout == "postgres 16\n"
    assert "postgres" in mem(*h, "search", "postgres").stdout
    mem(*h, "context", "--project", "api")


def test_logs_replaced_by_a_file_leaves_a_healthy_config_as_it_is(mem, store_path):
    h = ("--home", str(store_path))
    mem(*h, "remember", "project/api/db", "postgres 16")
    config = (store_path / "config").read_bytes()
    shutil.move(store_path / "logs", store_path / "logs.saved")
    (store_path / "logs").write_text("x\n")
    r = mem(*h, "fsck", "--repair", exit_code=13)
    assert "logs is a file, not a folder" in r.stderr and "config" not in r.stdout, (r.stdout, r.stderr)
    assert (store_path / "config").read_bytes() == config
    assert not list(store_path.glob("config.damaged-*"))
    (store_path / "logs").unlink()
    shutil.move(store_path / "logs.saved", store_path / "logs")
    assert mem(*h, "get", "project/api/db").stdout == "postgres 16\n"


def _home(tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir()
    return home


def test_hooks_and_mcp_install_refuse_a_link_into_a_missing_folder(mem, tmp_path):
    home = _home(tmp_path)
    env = {"HOME": str(home), "MEM_HOME": str(tmp_path / "store")}
    gone = tmp_path / "dotfiles" / "deep" / "er"
    (home / ".claude" / "settings.json").symlink_to(gone / "settings.json")
    (home / ".codex" / "config.toml").symlink_to(tmp_path / "dot2" / "b" / "config.toml")
    for args in (("hooks", "install", "claude-code"), ("hooks", "install", "claude-code", "--dry-run"),
                 ("mcp", "install", "codex"), ("mcp", "install", "codex", "--dry-run")):
        r = mem(*args, env=env, exit_code=2)
        assert "is a symbolic link to" in r.stderr and "whose folder does not exist" in r.stderr, (args, r.stderr)
    assert not (tmp_path / "dotfiles").exists() and not (tmp_path / "dot2").exists()
    # a link to a missing file in a folder that is there is written through, as before
    (tmp_path / "dotfiles" / "deep" / "er").mkdir(parents=True)
    mem("hooks", "install", "claude-code", env=env)
    assert "SessionStart" in (gone / "settings.json").read_text()
    assert (home / ".claude" / "settings.json").is_symlink()


def test_setup_with_a_dangling_bashrc_link_refuses_before_writing_and_dry_run_says_so(mem, tmp_path):
    home = _home(tmp_path)
    store = tmp_path / "store"
    env = {"HOME": str(home), "MEM_HOME": str(store), "SHELL": "/bin/bash"}
    (home / ".bashrc").symlink_to(tmp_path / "dot2" / "a" / "bashrc")
    for args in (("setup", "--dry-run"), ("setup",)):
        r = mem(*args, env=env, exit_code=2)
        assert f"{home}/.bashrc is a symbolic link to" in r.stderr, (args, r.stderr)
    assert not store.exists() and not (home / ".claude" / "settings.json").exists()
    assert not (tmp_path / "dot2").exists()
    (home / ".bashrc").unlink()
    r = mem("setup", env=env)
    assert "shell: added a line to" in r.stdout


def test_a_refused_vault_init_leaves_no_store_and_a_good_one_keeps_it(mem, tmp_path):
    home = tmp_path / "ns"
    short, empty, good = tmp_path / "sp", tmp_path / "ep", tmp_path / "gp"
    short.write_text("short\n")
    empty.write_text("\n")
    good.write_text("correct horse battery fix40b\n")
    for args in (("--passphrase-file", str(short)), ("--passphrase-file", str(empty)), ()):
        mem("--home", str(home), "vault", "init", *args, exit_code=2, input="")
        assert not home.exists(), (args, sorted(p.name for p in home.iterdir()))
    mem("--home", str(home), "keys", exit_code=10)
    mem("--home", str(home), "vault", "init", "--passphrase-file", str(good))
    mem("--home", str(home), "remember", "user/pin", "s3cret-40b", "--sensitivity", "secret")
    assert "user/pin" in mem("--home", str(home), "keys").stdout


def test_refs_sealed_or_tombstones_replaced_by_a_file_is_repaired_without_loss(mem, tmp_path):
    for ns in ("sealed", "tombstones"):
        home = tmp_path / ns
        h = ("--home", str(home))
        pp = tmp_path / "pp"
        pp.write_text("correct horse pass fix40b\n")
        mem(*h, "vault", "init", "--passphrase-file", str(pp))
        mem(*h, "remember", "user/pin", "s3cret-4040", "--sensitivity", "secret")
        mem(*h, "remember", "user/pin", "s3cret-5050", "--sensitivity", "secret")
        mem(*h, "remember", "user/fruit", "durian")
        mem(*h, "forget", "user/fruit", "--yes")
        shutil.rmtree(home / "refs" / ns)
        (home / "refs" / ns).write_text("x\n")
        for args in (("keys",), ("fsck",), ("remember", "user/x", "y")):
            r = mem(*h, *args, exit_code=13)
            assert f"refs/{ns} is a file, not a folder" in r.stderr, (ns, args, r.stderr)
        r = mem(*h, "fsck", "--repair")
        assert f"refs/{ns} is a file, not a folder: set it aside" in r.stdout, (ns, r.stdout)
        assert mem(*h, "fsck").stdout.startswith("ok:"), ns
        mem(*h, "gc", "--prune=now")
        assert [v["version"] for v in mem(*h, "log", "user/pin", "--json").json] == [2, 1], ns
        mem(*h, "remember", "user/fruit", "durian", "--trust", "agent_observed", exit_code=6)
