"""Defects found when the product was tried as a new user would (issue 11,
item 5): each test failed before its fix."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import unicodedata
from importlib import resources
from pathlib import Path

import pytest

from tests.conftest import REPO

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))
TOKEN = "ghp_" + "Q7x2Lm9Vb4Nc8Rt1Yz6Wp3Kd5Hs0Fj2Ga7Ue4"


# -- only `mem hook …` fails open ------------------------------------------------

@pytest.mark.parametrize("args", [
    ("search", "hook", "--bogus"),
    ("forget", "--match", "hook", "--bogus"),
    ("remember", "project/x/hook", "--bogus", "v"),
])
def test_a_word_hook_in_the_arguments_is_not_the_hook_command(mem, args):
    r = mem(*args, exit_code=2)
    assert "No such option" in r.stderr


@pytest.mark.parametrize("args", [("hook", "--bogus"), ("--home", "h", "hook", "--bogus"),
                                  ("hook", "claude-code", "--bogus")])
def test_the_hook_command_still_fails_open(mem, tmp_path, args):
    args = tuple(str(tmp_path / a) if a == "h" else a for a in args)
    mem(*args, exit_code=0)


def test_command_name():
    from cmds.main import command_name
    assert command_name(["search", "hook"]) == "search"
    assert command_name(["--home", "hook", "search"]) == "search"
    assert command_name(["--home=/x", "--lock-timeout", "3", "hook", "x"]) == "hook"
    assert command_name(["--version"]) is None


# -- a trace never holds a credential ---------------------------------------------

def test_trace_holds_no_credential(mem, tmp_path):
    mem("remember", "project/acme/deploy", "deploy with the release workflow")
    trace = tmp_path / "trace.jsonl"
    mem("context", "--prompt", f"deploy the release with {TOKEN} now", "--project", "acme",
        env={"MEM_TRACE": str(trace)})
    raw = trace.read_text()
    rec = json.loads(raw)
    assert "deploy" in rec["cues"]["prompt"]
    body = TOKEN[4:]
    assert not any(body[i:i + 8].lower() in raw.lower() for i in range(len(body) - 8)), raw


def test_shell_history_holds_no_credential(store):
    from objstore import append_history, load_history
    append_history(store, f"remember project/x/t {TOKEN}")
    assert TOKEN not in (store.root / "cache").joinpath("shell-history").read_text()
    assert "[REDACTED" in load_history(store)[-1]


# -- NO_COLOR ---------------------------------------------------------------------

def _on_a_terminal(args: list[str], env: dict) -> bytes:
    master, slave = pty.openpty()
    try:
        subprocess.run([sys.executable, "-m", "cmds", *args], stdin=slave, stdout=slave, stderr=slave,
                       env=env, cwd=REPO, timeout=120, check=True)
    finally:
        os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side is closed and drained
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return out


def test_no_color_is_honoured_on_a_terminal(mem):
    mem("remember", "project/x/db", "postgres")
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    assert b"\x1b[" in _on_a_terminal(["log", "project/x/db"], env)  # colour by default on a terminal
    out = _on_a_terminal(["log", "project/x/db"], {**env, "NO_COLOR": "1"})
    assert b"postgres" in out and b"\x1b[" not in out


# -- a missing index is rebuilt, never silent ----------------------------------------

def test_search_after_the_index_was_deleted(mem, store_path):
    mem("remember", "project/x/db", "postgres on port 5432")
    shutil.rmtree(store_path / "index")
    r = mem("search", "postgres")
    assert "project/x/db" in r.stdout
    assert "index was missing" in r.stderr
    r = mem("search", "postgres")  # rebuilt once
    assert "project/x/db" in r.stdout and "missing" not in r.stderr
    shutil.rmtree(store_path / "index")
    r = mem("recall", "postgres", "--all-projects")
    assert "project/x/db" in r.stdout and "index was missing" in r.stderr


def test_a_write_after_the_index_was_deleted_does_not_hide_the_rest(mem, store_path, tmp_path):
    """Issue 21 re-attack: ``rm -rf index`` then a write created an index holding only
    that write, and searches never rebuilt it.  The write marks the new index partial;
    the next search rebuilds it whole.  The same for the turns sub-index alone."""
    mem("remember", "project/x/db", "postgres on port 5432")
    mem("remember", "user/editor", "helix editor")
    shutil.rmtree(store_path / "index")
    mem("remember", "user/shell", "fish shell")
    r = mem("search", "postgres")
    assert "project/x/db" in r.stdout and "index was missing" in r.stderr
    r = mem("search", "helix")
    assert "user/editor" in r.stdout and "missing" not in r.stderr
    assert not (store_path / "index" / "PARTIAL").exists()
    # a fresh store's first writes make a complete index: no rebuild
    fresh = {"MEM_HOME": str(tmp_path / "fresh")}
    mem("remember", "user/a", "alpha value", env=fresh)
    mem("remember", "user/b", "beta value", env=fresh)
    r = mem("search", "alpha", env=fresh)
    assert "user/a" in r.stdout and r.stderr == ""
    # the turns sub-index alone
    t = tmp_path / "s1.jsonl"
    rec = lambda u, sid, text, mid=None: json.dumps(  # noqa: E731
        {"type": "assistant" if mid else "user", "uuid": u, "sessionId": sid, "cwd": "/p",
         "timestamp": "2026-01-05T10:00:00Z",
         "message": {"id": mid, "role": "assistant", "content": [{"type": "text", "text": text}]} if mid
         else {"role": "user", "content": text}}) + "\n"
    t.write_text(rec("u1", "s1", "the quokka migration plan") + rec("a1", "s1", "ok", "m1"))
    mem("import", "claude-code", str(t))
    shutil.rmtree(store_path / "index" / "turns")
    t2 = tmp_path / "s2.jsonl"
    t2.write_text(rec("u2", "s2", "the wallaby rollout") + rec("a2", "s2", "done", "m2"))
    mem("import", "claude-code", str(t2))
    r = mem("search", "quokka")
    assert "s1" in r.stdout and "index was missing" in r.stderr, (r.stdout, r.stderr)


def test_a_file_where_the_index_belongs_is_replaced_not_an_internal_error(mem, store_path):
    mem("remember", "user/editor", "helix")
    shutil.rmtree(store_path / "index")
    (store_path / "index").write_text("x")
    r = mem("remember", "user/shell", "fish")                 # the write stands, the index is behind
    assert "not a directory" in r.stderr and "mem reindex" in r.stderr
    r = mem("search", "helix")
    assert "user/editor" in r.stdout and "internal error" not in r.stderr
    assert (store_path / "index").is_dir()
    (store_path / "index").rename(store_path / "index.old")
    (store_path / "index").write_text("x")
    assert "indexed" in mem("reindex").stdout
    assert "user/shell" in mem("search", "fish").stdout


def test_a_fresh_store_is_not_a_missing_index(mem):
    mem("init")
    r = mem("search", "anything")
    assert r.stdout == "" and r.stderr == ""


# -- search finds a word only an older version holds -------------------------------

def test_search_resolves_an_old_version_to_the_current_value(mem):
    mem("remember", "project/x/db", "postgres 14 on port 5432")
    mem("remember", "project/x/db", "mysql 8")
    r = mem("search", "postgres", "--json")
    hits = r.json
    assert [h["key"] for h in hits] == ["project/x/db"]
    assert hits[0]["snippet"] == "mysql 8" and hits[0]["resolved_from"]
    assert mem("search", "postgres", "--what", "turns", "--json").json == []


# -- a forgotten version is marked --------------------------------------------------

def test_log_and_show_mark_a_forgotten_version(mem):
    mem("remember", "project/x/db", "postgres")
    mem("remember", "project/x/db", "mysql")
    mem("forget", "project/x/db@v1", "--yes")
    log = mem("log", "project/x/db").stdout
    assert "(forgotten at 20" in log and "postgres" not in log
    show = mem("show", "project/x/db@v1").stdout
    assert "(forgotten at 20" in show


# -- setup --dry-run says what it would do --------------------------------------------

def test_setup_dry_run_says_would(mem, tmp_path):
    r = mem("setup", "--dry-run", "--shell", "bash")
    assert "installed" not in r.stdout and "added a line" not in r.stdout
    assert "would install in" in r.stdout and "would add a line to" in r.stdout
    assert not (tmp_path / "home" / ".claude").exists()


# -- forget --scrub-sources matches as the store does ------------------------------------

@pytest.mark.parametrize("planted,match", [
    ("Straße", "STRASSE"),
    (unicodedata.normalize("NFD", "Café Noir"), "café noir"),
])
def test_forget_scrub_sources_matches_like_the_store(mem, tmp_path, planted, match):
    src = next(SAMPLE.glob("*/5f0c9a52-*.jsonl"))
    lines = src.read_text().splitlines()
    for i, line in enumerate(lines):
        rec = json.loads(line)
        msg = rec.get("message")
        if rec.get("type") == "user" and isinstance(msg, dict) and isinstance(msg.get("content"), str) \
                and not rec.get("isMeta"):
            msg["content"] += f" and meet at the {planted} corner"
            lines[i] = json.dumps(rec, ensure_ascii=False)
            break
    planted_file = tmp_path / "t" / src.name
    planted_file.parent.mkdir()
    planted_file.write_text("\n".join(lines) + "\n")
    mem("import", "claude-code", str(planted_file))
    mem("remember", "project/p/spot", f"the {planted} corner")
    r = mem("forget", "--match", match, "--scrub-sources", "--yes", "--json")
    assert r.json["sources_scrubbed"] == [str(planted_file.resolve())]
    assert planted not in planted_file.read_text()
    # the scrub keeps each line's length: the marker is [REDACTED], [R] or * (capture/scrub.MARKERS)
    assert any(m in planted_file.read_text() for m in ("[REDACTED]", "[R]"))
    assert mem("forget", "--match", match).stdout.startswith("nothing matches")
