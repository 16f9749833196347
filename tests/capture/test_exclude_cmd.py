"""mem exclude: preview, apply (keeping the rest of config.toml), forget, list, remove."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "cmds" / "data" / "sample-projects"


def test_preview_apply_forget_list_remove(invoke, store_path):
    invoke("import", "claude-code", str(SAMPLE))
    cfg = store_path / "config.toml"
    cfg.write_text('# mine\n[capture]\nignore_marker = "#x"  # keep this comment\n\n[other]\nv = 1\n')
    before = cfg.read_text()
    pv = invoke("exclude", "--add", "/home/dev/acme-*", "--json").json
    assert pv["applied"] is False and pv["projects"] == ["acme-api"] and len(pv["sessions"]) == 3
    assert cfg.read_text() == before  # a preview writes nothing
    r = invoke("exclude", "--add", "/home/dev/acme-*", "--apply", "--forget", "--json").json
    assert r["added"] and r["forgotten"]
    text = cfg.read_text()
    assert "# keep this comment" in text and "[other]\nv = 1" in text
    assert tomllib.loads(text)["capture"]["exclude"] == ["/home/dev/acme-*"]
    assert invoke("sessions", "--json").json == []
    invoke("import", "claude-code", str(SAMPLE))  # excluded: nothing comes back
    assert invoke("sessions", "--json").json == []
    assert invoke("exclude", "--list", "--json").json == ["/home/dev/acme-*"]
    assert invoke("exclude", "--add", "/home/dev/acme-*", "--apply", "--json").json["added"] is False
    assert invoke("exclude", "--remove", "/home/dev/acme-*", "--json").json["removed"] is True
    assert tomllib.loads(cfg.read_text())["capture"]["exclude"] == []
    assert "# keep this comment" in cfg.read_text()


def test_exclude_creates_the_table_and_refuses_bad_input(invoke, store_path):
    invoke("exclude", "--list", exit_code=10)  # no store yet: nothing to list
    invoke("init")
    invoke("exclude", "--add", "~/secret", "--apply")
    doc = tomllib.loads((store_path / "config.toml").read_text())
    assert doc["capture"]["exclude"][0].endswith("/home/secret")
    invoke("exclude", exit_code=2)
    invoke("exclude", "--list", "--apply", exit_code=2)
    invoke("exclude", "--add", "  ", exit_code=2)
    (store_path / "config.toml").write_text("not = [valid")
    r = invoke("exclude", "--add", "/x", "--apply", exit_code=2)
    assert "not valid TOML" in r.stderr


def test_apply_forget_says_what_the_forget_deleted_and_no_gc_is_needed(invoke, store_path):
    """test25 T10 (lead25's and mend25's tests, one since session 26): the
    forget deletes the sessions' objects and purges the index itself; the
    summary said to run 'mem gc --prune=now' for that."""
    invoke("import", "claude-code", str(SAMPLE))
    r = invoke("exclude", "--add", "/home/dev/acme-*", "--apply", "--forget")
    line = r.stdout.strip().splitlines()[-1]
    assert line.startswith("forgot 3 sessions (") and "objects deleted, search index purged" in line, r.stdout
    assert "gc" not in r.stdout + r.stderr
    assert invoke("gc", "--prune=now", "--dry-run", "--json").json["unreachable"] == 0   # nothing left for gc
