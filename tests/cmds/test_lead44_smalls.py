"""fresh42 F14, fresh43 F11/F16 small ones, each through a real ``mem`` process: a one-letter
``capture.ignore_marker`` (every prompt starting "a…" silently uncaptured) and one holding control characters are
refused; an export of a newer format is exit 14 "upgrade mem", not exit 2 "make one with mem export"; ``mem export |
mem import jsonl -`` works; ``get --as-of 1970-01-01`` names the time (not "-"); "2026-02-30" is "not a valid date",
not "not between 1970 and 9999"; a settings.json starting with a BOM is named as such; ``mem hooks install codex``
points at ``mem mcp install codex``; ``mem hook shell --status 999999999999`` is no shell's status: not stored,
exit 0, the hook log says why."""

from __future__ import annotations

import subprocess
import sys

from objstore.memory.opening import open_store
from tests.hooks._util import REPO, hook_env, hook_log, turns


def test_an_ignore_marker_an_ordinary_prompt_starts_with_is_refused(mem, tmp_path):
    home = str(tmp_path / "s")
    mem("--home", home, "init")
    for bad, says in (("a", "must begin with a sign"), ("nomem", "must begin with a sign"),
                      ("#x\x1b[2J", "without control characters")):
        r = mem("--home", home, "config", "capture.ignore_marker", bad, exit_code=2)
        assert says in r.stderr, r.stderr
        assert mem("--home", home, "config", "capture.ignore_marker").stdout.strip() == "#nomem"
    mem("--home", home, "config", "capture.ignore_marker", "!skip")
    assert mem("--home", home, "config", "capture.ignore_marker").stdout.strip() == "!skip"
    (tmp_path / "s" / "config.toml").write_text('[capture]\nignore_marker = "a"\n')   # by hand (test44 T5)
    r = mem("--home", home, "doctor", exit_code=None)
    assert "[config] capture.ignore_marker must begin with a sign" in r.stdout, r.stdout


def test_import_jsonl_of_a_newer_export_and_from_stdin(mem, tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    mem("--home", a, "init")
    mem("--home", b, "init")
    mem("--home", a, "remember", "project/x/port", "the port is 8080")
    out = mem("--home", a, "export").stdout
    r = mem("--home", b, "import", "jsonl", "-", input=out)
    assert "1 ref" in r.stdout, r.stdout
    assert mem("--home", b, "get", "project/x/port").stdout.strip() == "the port is 8080"
    newer = tmp_path / "newer.jsonl"
    newer.write_text(out.replace('"format":"mem-export/1"', '"format":"mem-export/9"', 1))
    assert '"mem-export/9"' in newer.read_text()
    r = mem("--home", b, "import", "jsonl", str(newer), exit_code=14)
    assert "newer than this mem reads" in r.stderr and "upgrade mem" in r.stderr, r.stderr
    r = mem("--home", b, "import", "jsonl", "-", "--guard-passphrase-file", "-", input=out, exit_code=2)
    assert "both come from standard input" in r.stderr, r.stderr
    r = mem("--home", b, "import", "jsonl", "-", "-", input=out, exit_code=2)   # (test44 T5)
    assert "can be read once" in r.stderr, r.stderr
    for other in ("mem-export/0", "mem-export/beta"):   # not newer: not "upgrade mem" (test44 T5)
        newer.write_text(out.replace('"format":"mem-export/1"', f'"format":"{other}"', 1))
        r = mem("--home", b, "import", "jsonl", str(newer), exit_code=2)
        assert "upgrade" not in r.stderr and "not a mem-export/1 export" in r.stderr, r.stderr


def test_times_told_as_they_are(mem, tmp_path):
    home = str(tmp_path / "s")
    mem("--home", home, "remember", "project/x/port", "the port is 8080")
    r = mem("--home", home, "get", "project/x/port", "--as-of", "1970-01-01", exit_code=4)
    assert "no current value at 1970-01-01T00:00:00Z" in r.stderr, r.stderr
    r = mem("--home", home, "get", "project/x/port", "--as-of", "2026-02-30", exit_code=2)
    assert "is not a valid date or time" in r.stderr and "between 1970" not in r.stderr, r.stderr
    r = mem("--home", home, "get", "project/x/port", "--as-of", "12026-01-01", exit_code=2)
    assert "between 1970 and 9999" in r.stderr, r.stderr


def test_hooks_install_codex_points_at_mcp(mem, tmp_path):
    r = mem("hooks", "install", "codex", env={"HOME": str(tmp_path)}, exit_code=2)
    assert "mem mcp install codex" in r.stderr, r.stderr
    assert not (tmp_path / ".claude").exists()


def test_a_shell_status_no_shell_gives_is_not_stored(tmp_path):
    store = tmp_path / "store"
    open_store(store, create=True).close()
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    for status, kept in (("999999999999", False), ("-1", False), ("2", True)):
        r = subprocess.run([sys.executable, "-m", "cmds", "hook", "shell", "--session", "shell-s-" + status,
                            "--cwd", str(tmp_path), "--status", status, "--start", "1767225600000",
                            "--duration", "5"], input="make", text=True, env=env, cwd=REPO, capture_output=True,
                           timeout=60)
        assert r.returncode == 0 and r.stdout == "", r
        assert any(t[0] == "shell-s-" + status for t in turns(store)) == kept, (status, turns(store))
    assert hook_log(store).count("HookInputError:status-not-0-255") == 2, hook_log(store)


def test_a_settings_file_with_a_bom_is_named_as_such(mem, tmp_path):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'\xef\xbb\xbf{"hooks": {}}')
    r = mem("--home", str(tmp_path / "s"), "hooks", "install", "claude-code", env={"HOME": str(tmp_path)}, exit_code=2)
    assert "byte order mark" in r.stderr and "utf-8-sig" not in r.stderr, r.stderr
    assert settings.read_bytes() == b'\xef\xbb\xbf{"hooks": {}}'


def test_a_repair_that_leaves_a_damaged_hash_key_says_no_nothing(mem, tmp_path):
    """fresh44 F2: a damaged hash-key: ``fsck --repair`` printed "repair: nothing to repair" before the error it
    leaves, and the error cited an internal finding id ("fresh40 F2")."""
    home = tmp_path / "s"
    mem("--home", str(home), "init")
    mem("--home", str(home), "forget", "--match", "Zephyrine Quillborough", "--yes")
    with open(home / "hash-key", "r+b") as f:
        f.truncate(5)
    r = mem("--home", str(home), "fsck", "--repair", exit_code=13)
    assert "nothing to repair" not in r.stdout and "hash key cannot be read" in r.stdout, r.stdout
    assert "fresh40" not in r.stdout + r.stderr, r.stdout
