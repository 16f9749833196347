"""fresh41's small findings, each through a real `mem` process:
F2 (the review shell's `list`), F10 (clone's hint for a missing folder),
F11 ("body" in messages), F19 (a typed date hidden as a value), F20 (import
--help's default for a ref already here), F24 (`mcp install --http` of no
URL), F26 (`nuke` with no store exits 10, as every command)."""

from __future__ import annotations

import os
from pathlib import Path


def test_an_empty_or_long_value_is_called_the_value_not_body(mem, tmp_path):
    mem("init")
    r = mem("remember", "project/api/db", "", exit_code=2)
    assert "the value is empty" in r.stderr and "body" not in r.stderr
    r = mem("remember", "project/api/db", "-", input="x" * 100_001, exit_code=2)
    assert "the value is longer than 100000 characters" in r.stderr and "body" not in r.stderr


def test_a_date_out_of_range_is_echoed_as_typed_and_a_word_stays_hidden(mem):
    mem("init")
    r = mem("remember", "project/api/db", "Postgres 21", "--valid-from", "1969-12-31", exit_code=2)
    assert "'1969-12-31' is not a time" in r.stderr and "value hidden" not in r.stderr
    r = mem("remember", "project/api/db", "Postgres 21", "--valid-from", "hunter2-sesame", exit_code=2)
    assert "hunter2-sesame" not in r.stderr and "'<value hidden>' is not a time" in r.stderr


def test_import_help_says_a_ref_here_at_another_version_refuses_unless_keep_existing(mem):
    text = " ".join(mem("import", "--help").stdout.split())
    assert "a ref the store already has elsewhere is kept" not in text
    assert "refuses the import, exit 6, unless --keep-existing" in text


def test_clone_of_a_missing_folder_gives_no_mkdir_hint_but_remote_add_does(mem, tmp_path):
    gone = tmp_path / "nonexist"
    r = mem("--home", str(tmp_path / "c3"), "clone", str(gone), exit_code=15)
    assert "does not exist" in r.stderr and "mkdir" not in r.stderr and "check the path" in r.stderr
    assert not gone.exists() and not (tmp_path / "c3").exists()
    mem("init")
    r = mem("remote", "add", "x", str(gone), exit_code=15)
    assert f"mkdir -p {gone}" in r.stderr


def test_mcp_install_http_refuses_what_is_no_http_url(mem, tmp_path):
    cfg = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    for bad in ("not a url", "ftp://x", "", "http://", "http://exa mple.com/mcp", "http://127.0.0.1:abc/mcp",
                "http://127.0.0.1:99999/mcp"):
        r = mem("mcp", "install", "codex", "--http", bad, "--force", exit_code=2)
        assert "not an http(s) URL with a host" in r.stderr, (bad, r.stderr)
        assert not cfg.exists()
    mem("mcp", "install", "codex", "--http", "http://127.0.0.1:8765/mcp", "--force")
    assert 'url = "http://127.0.0.1:8765/mcp"' in cfg.read_text()


def test_nuke_with_no_store_exits_10_like_every_command(mem, tmp_path):
    r = mem("--home", str(tmp_path / "nothere"), "nuke", exit_code=10)
    assert "no mem store at" in r.stderr
    assert mem("--home", str(tmp_path / "nothere"), "get", "x", exit_code=10)


def test_the_review_shell_takes_list_as_mem_queue_list_does(mem):
    mem("init")
    r = mem("review", input="list\nquit\n")
    assert "unknown command" not in r.stdout + r.stderr
    assert "the review queue is empty" in r.stdout


def test_reflog_shows_a_forget_rewrite_as_rewritten_not_created(mem):
    """F14: after `forget KEY@vN`, the rewrite's line read "(created) -> …"."""
    mem("init")
    for v in ("alpha-one", "bravo-two", "charlie-three"):
        mem("remember", "project/api/host", v)
    mem("forget", "project/api/host@v2", "--yes")
    lines = mem("reflog", "project/api/host").stdout.splitlines()
    assert "(rewritten) -> " in lines[0] and lines[0].endswith("forget: history rewritten"), lines
    assert "(created) -> " in lines[-1] and lines[-1].endswith("remember"), lines   # the key's first write


def test_remember_into_a_full_stdout_says_the_output_was_lost_not_the_disk(mem, tmp_path):
    """F18: `mem remember … > /dev/full` said "no space left on device … free some
    space" though the value was stored: it is the output that failed."""
    import subprocess
    import sys
    from tests.conftest import REPO
    mem("init")
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "cmds", "remember", "project/odd/full", "v-full"], stdout=full,
                           stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 1
    assert "standard output could not be written" in p.stderr and "free some space" not in p.stderr, p.stderr
    assert mem("get", "project/odd/full").stdout.strip() == "v-full"


def test_forget_counts_every_tombstone_it_writes(mem):
    """F1: "2 tombstones written" where three tombstone refs were written (the
    version's record was left out of the count)."""
    import os
    from pathlib import Path
    mem("init")
    mem("remember", "project/api/staging-host", "staging-7.internal")
    r = mem("forget", "project/api/staging-host", "--yes")
    refs = [p for p in (Path(os.environ["MEM_HOME"]) / "refs" / "tombstones").rglob("*") if p.is_file()]
    assert f"{len(refs)} tombstones written" in r.stdout, (len(refs), r.stdout)


def test_a_first_push_into_a_folder_of_other_files_writes_nothing(mem, tmp_path):
    """F9: a push into a folder holding the person's files wrote mem's files among
    them, then said "try again in a minute"."""
    junk = tmp_path / "junk"
    (junk / "packs").mkdir(parents=True)
    (junk / "notes.txt").write_text("hello\n")
    (junk / "packs" / "a").write_text("x\n")
    mem("remember", "project/api/db", "Postgres 16")
    mem("remote", "add", "j", str(junk))
    for cmd in ("push", "backup"):
        r = mem(cmd, "j", exit_code=2)
        assert "holds files that are not a mem remote's (notes.txt)" in r.stderr and "try again" not in r.stderr
    assert sorted(p.name for p in junk.rglob("*")) == ["a", "notes.txt", "packs"]   # nothing written
    empty = tmp_path / "usb"
    empty.mkdir()
    (empty / ".DS_Store").write_text("")      # what a desktop puts there does not count
    git = tmp_path / "repo"
    (git / ".git").mkdir(parents=True)         # a .git is the person's (test42 T22)
    mem("remote", "add", "g", str(git))
    assert "(.git)" in mem("push", "g", exit_code=2).stderr
    mem("remote", "add", "u", str(empty))
    mem("push", "u")
    assert (empty / "mem-remote").is_file()
    mem("push", "u")                           # the remote's own files do not count either


def test_doctor_without_capture_hooks_warns_and_exits_0(mem, tmp_path):
    """fresh42 F7: doctor exited 1 ("error") whenever the hooks were not
    installed, even right after `mem setup --undo`; hooks installed but broken
    stay an error."""
    import json
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "SHELL": "/bin/bash"}
    mem("remember", "project/a/b", "c-value", env=env)
    r = mem("doctor", env=env)                      # exit 0
    assert "warning: [hooks]" in r.stdout and "capture hooks are not installed" in r.stdout, r.stdout
    mem("setup", "--shell", "none", env=env)
    mem("setup", "--undo", "--shell", "none", env=env)
    assert "capture hooks are not installed" in mem("doctor", env=env).stdout
    mem("setup", "--shell", "none", env=env)
    settings = tmp_path / "claude" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["hooks"].pop("Stop")                        # one event's hook gone: broken, an error
    settings.write_text(json.dumps(doc))
    r = mem("doctor", env=env, exit_code=1)
    assert "error: [hooks]" in r.stdout and "missing for Stop" in r.stdout, r.stdout


def test_proxy_install_without_the_proxy_extra_writes_no_service(tmp_path):
    """fresh42 F20: `mem proxy install` wrote a systemd unit for a `mem proxy` that
    exits at once (aiohttp missing) and told the person to enable it."""
    import os
    import subprocess
    import sys
    from tests.conftest import REPO
    code = ("import sys; sys.modules['aiohttp'] = None; sys.argv = ['mem'] + sys.argv[1:]; "
            "from cmds.entry import entry; entry()")   # a Python without the proxy extra
    unit = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / "mem-proxy.service"

    def run(*args):
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO,
                              timeout=120)
    r = run("proxy", "install")
    assert r.returncode == 1 and "memvcs[proxy]" in r.stderr and "nothing was written" in r.stderr, r.stderr
    assert not unit.exists()
    assert run("proxy", "install", "--dry-run").returncode == 0 and not unit.exists()
    r = run("proxy", "install", "--force")
    assert r.returncode == 0 and unit.is_file(), r.stderr


def test_doctor_names_a_remote_folder_push_would_refuse(mem, tmp_path):
    """test42 T21: doctor said "push to create it" for a folder that push refuses."""
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.txt").write_text("hello\n")
    mem("remember", "project/api/db", "Postgres 16")
    mem("remote", "add", "j", str(junk))
    r = mem("doctor", exit_code=None)
    assert "holds files that are not a mem remote's (notes.txt)" in r.stdout + r.stderr, r.stdout
    assert "push to create it" not in r.stdout
