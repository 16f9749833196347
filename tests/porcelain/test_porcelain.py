"""reflog, diff, blame, stats, export/import, scan and nuke on real stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "cmds" / "data" / "sample-projects"


@pytest.fixture
def tour(invoke, tmp_path):
    """A store with a superseded key, a queue decision and the bundled sessions."""
    invoke("remember", "project/api/db", "Postgres 15 on port 5432")
    invoke("remember", "project/api/db", "Postgres 16 on port 5433")
    invoke("remember", "user/editor", "vim")
    invoke("remember", "user/editor", "helix", "--trust", "agent_observed")  # parked: challenges the person
    invoke("import", "claude-code", str(SAMPLE))
    return tmp_path


def test_reflog_lists_every_move_newest_first(tour, invoke):
    moves = invoke("reflog", "project/api/db", "--json").json
    assert [m["command"] for m in moves] == ["remember", "remember"]
    assert moves[0]["old"] == moves[1]["new"] and moves[1]["old"] is None
    everything = invoke("reflog", "--json").json
    refs = {m["ref"] for m in everything}
    assert "facts/project/api/db" in refs and any(r.startswith("sessions/") for r in refs)
    assert any(r.startswith("queue/") for r in refs)  # the parked proposal's ref
    times = [m["time"] for m in everything]
    assert times == sorted(times, reverse=True)
    assert "Postgres" not in json.dumps(everything)  # ids and commands only, never values
    assert invoke("reflog", "-n", "1", "--json").json == everything[:1]


def test_reflog_errors(tour, invoke):
    r = invoke("reflog", "project/api/nothing", exit_code=4)
    assert "no reflog" in r.stderr
    invoke("reflog", "bad key with spaces/../x", exit_code=2)


def test_diff_is_word_level_and_defaults_to_previous_vs_current(tour, invoke):
    r = invoke("diff", "project/api/db")
    assert "Postgres [-15-]{+16+} on port [-5432-]{+5433+}" in r.stdout
    d = invoke("diff", "project/api/db", "v2", "v1", "--json").json
    assert (d["a"]["version"], d["b"]["version"], d["changed"]) == (2, 1, True)
    a = "".join(o["text"] for o in d["ops"] if o["op"] != "insert")
    b = "".join(o["text"] for o in d["ops"] if o["op"] != "delete")
    assert (a, b) == ("Postgres 16 on port 5433", "Postgres 15 on port 5432")
    invoke("diff", "project/api/db", "v9", exit_code=4)
    invoke("diff", "project/api/db", "two", exit_code=2)
    invoke("remember", "project/api/once", "only one")
    assert "nothing to diff" in invoke("diff", "project/api/once").stdout   # one version: no error (fix14)


def test_blame_names_the_command_the_review_and_the_cited_turn(tour, invoke):
    b = invoke("blame", "project/api/db", "--json").json
    assert (b["version"], b["versions"], b["trust"], b["command"], b["review"]) == (2, 2, "user_stated", "remember", None)
    item = invoke("queue", "list", "--json").json[0]["id"]
    invoke("queue", "accept", item[:12])
    b = invoke("blame", "user/editor", "--json").json
    assert (b["command"], b["review"], b["trust"]) == ("queue accept", "accepted", "user_stated")
    # a fact citing a turn: blame resolves the turn to its session
    turn = invoke("search", "postgres", "--json").json
    tid = next(h for h in turn if h["kind"] == "turn")
    from objstore import open_store, remember
    import os
    with open_store(os.environ["MEM_HOME"]) as st:
        remember(st, "project/api/ci", "CI uses Postgres 16", sources=(tid["id"],))
    b = invoke("blame", "project/api/ci", "--json").json
    assert b["sources"][0]["session"] == tid["session"] and b["sources"][0]["role"] in ("user", "assistant")
    assert "session" in invoke("blame", "project/api/ci").stdout


def test_stats_counts_by_type_scope_and_project(tour, invoke):
    s = invoke("stats", "--json").json
    # the sample's subagent leaves its summary in the project (objstore.capture.rollup)
    assert s["objects"]["fact"] == 4 and s["objects"]["turn"] >= 10
    assert s["objects"]["queue item"] == 1
    assert s["facts_by_state"]["current"] == 3 and s["facts_by_state"]["queued"] == 1
    assert s["facts_by_scope"] == {"project/api": 1, "user": 1, "project/acme-api": 1}
    assert s["sessions_by_project"]["acme-api"] >= 2 and s["turns_by_harness"]["claude-code"] >= 10
    assert len(s["growth"]) == 30 and s["growth"][-1]["facts"] == 4  # today's writes
    assert s["index_bytes"] > 0 and s["store_bytes"] >= s["pack_bytes"] + s["index_bytes"]
    assert "Postgres" not in invoke("stats").stdout


def test_stats_counts_each_object_once_packed_or_loose_and_a_damaged_one_as_unreadable(tour, invoke, store_path):
    """test25 T7: the count reads each pack in body order (one inflation a
    block), as fsck does, and still counts an object held loose and packed
    once, and a damaged one as unreadable."""
    before = invoke("stats", "--json").json["objects"]
    invoke("gc")
    packed = invoke("stats", "--json").json
    assert packed["objects"] == before and packed["packs"] >= 1, packed
    assert sum(before.values()) == invoke("fsck", "--json").json["objects"]
    invoke("remember", "user/shell", "zsh")                # one loose fact beside the packs
    loose = [f for f in (store_path / "objects").glob("??/*")]
    assert len(loose) == 1
    got = invoke("stats", "--json").json["objects"]
    assert got == {**before, "fact": before["fact"] + 1}, got
    loose[0].chmod(0o644)
    loose[0].write_bytes(b"\x00damaged")
    got = invoke("stats", "--json").json["objects"]
    assert got == {**before, "unreadable": 1}, got


def test_export_import_round_trip_is_exact(tour, invoke, tmp_path, monkeypatch):
    out = tmp_path / "mem.jsonl"
    invoke("export", "-o", str(out))
    before = {k: invoke("log", k, "--json").json for k in ("project/api/db", "user/editor")}
    sessions = invoke("sessions", "--json").json
    queries = ["postgres", "port 5433", "fixture"]
    found = {q: [(h["kind"], h["id"]) for h in invoke("search", q, "--json").json] for q in queries}
    monkeypatch.setenv("MEM_HOME", str(tmp_path / "second"))
    r = invoke("import", "jsonl", str(out), "--json").json
    assert r["refs_kept"] == 0 and r["objects"] > 10
    assert {k: invoke("log", k, "--json").json for k in before} == before
    assert invoke("sessions", "--json").json == sessions
    assert {q: [(h["kind"], h["id"]) for h in invoke("search", q, "--json").json] for q in queries} == found
    assert "0 problems" in invoke("fsck").stdout
    again = invoke("import", "jsonl", str(out), "--json").json  # idempotent
    assert (again["objects"], again["refs"]) == (0, 0)


def test_import_refuses_a_damaged_line_and_writes_no_ref(tour, invoke, tmp_path, monkeypatch):
    out = tmp_path / "mem.jsonl"
    invoke("export", "-o", str(out))
    lines = out.read_text().splitlines()
    lines[1] = lines[1].replace("5432", "5999")
    out.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("MEM_HOME", str(tmp_path / "second"))
    r = invoke("import", "jsonl", str(out), exit_code=2)
    assert "line 2" in r.stderr and "does not hash" in r.stderr
    assert invoke("keys", "--json", exit_code=None).stdout.strip() in ("", "[]")
    (tmp_path / "not.jsonl").write_text('{"hello": 1}\n')
    invoke("import", "jsonl", str(tmp_path / "not.jsonl"), exit_code=2)


def test_markdown_export_is_readable(tour, invoke, tmp_path):
    invoke("export", "--format", "markdown", "-o", str(tmp_path / "md"))
    text = (tmp_path / "md" / "facts" / "project" / "api" / "db.md").read_text()
    assert text.startswith("# project/api/db\n\nPostgres 16 on port 5433\n")
    assert "| v1 |" in text and "5432" in text
    assert list((tmp_path / "md" / "sessions" / "acme-api").glob("*.md"))
    invoke("export", "--format", "markdown", exit_code=2)


def test_scan_finds_the_text_everywhere_then_nowhere_after_forget(tour, invoke, tmp_path):
    hist = tmp_path / "home" / ".bash_history"
    hist.write_text("mem remember user/x 'canary-7f3e'\n")
    invoke("remember", "user/x", "canary-7f3e")
    r = invoke("scan", "CANARY-7f3e", "--json", exit_code=1).json
    places = {h["place"] for h in r}
    assert {"object", "file"} <= places
    assert "canary-7f3e" not in json.dumps(r).lower()
    invoke("forget", "--match", "canary-7f3e", "--yes")
    invoke("gc", "--prune=now")
    r = invoke("scan", "canary-7f3e", "--json", exit_code=1).json
    assert [h["place"] for h in r] == ["file"]  # only the shell history still has it
    hist.unlink()
    assert "found nowhere" in invoke("scan", "canary-7f3e").stdout
    invoke("scan", "   ", exit_code=2)


def test_scan_asks_without_echo(tour, mem):
    r = mem("scan", input="canary-absent\n")
    assert "canary-absent" not in r.stdout + r.stderr


def test_nuke_needs_the_typed_path(tour, invoke, store_path):
    r = invoke("nuke", input="yes\n", exit_code=1)
    assert "nothing deleted" in r.stderr and store_path.is_dir()
    assert "does not touch" in r.stderr
    invoke("nuke", input=f"{store_path}\n")
    assert not store_path.exists()
    r = invoke("nuke", "--yes-really", str(store_path), exit_code=10)   # "no store", as everywhere (fresh41 F26)
    assert "no mem store at" in r.stderr


def test_doctor_reports_each_problem_with_its_fix(tour, invoke, store_path, tmp_path, monkeypatch):
    import sys
    exe = Path(sys.executable).parent / "mem"  # the installed console script (the venv's)
    monkeypatch.setenv("MEM_HOOK_COMMAND", str(exe))
    invoke("setup", "--shell", "none")
    settings = tmp_path / "home" / ".claude" / "settings.json"
    assert invoke("doctor", "--json").json["ok"] is True
    # a hook removed from settings.json
    doc = json.loads(settings.read_text())
    del doc["hooks"]["UserPromptSubmit"]
    settings.write_text(json.dumps(doc))
    # a stale ref lock, a deleted index, a 0644 object file
    lock = store_path / "refs" / "facts" / "project" / "api" / "db.lock"
    lock.write_text("")
    import os
    import shutil
    os.utime(lock, (1, 1))
    shutil.rmtree(store_path / "index")
    obj = next(p for p in (store_path / "objects").rglob("*") if p.is_file())
    obj.chmod(0o644)
    r = invoke("doctor", "--json", exit_code=1).json
    checks = {f["check"]: f for f in r["findings"]}
    assert set(checks) >= {"hooks", "locks", "index", "permissions"}
    assert "UserPromptSubmit" in checks["hooks"]["message"] and checks["hooks"]["fix"] == "mem setup"
    assert checks["index"]["fix"] == "mem reindex"
    r = invoke("doctor", "--fix", "--json", exit_code=1).json
    assert {f["check"] for f in r["findings"]} == {"hooks", "index"}
    assert not lock.exists() and obj.stat().st_mode & 0o077 == 0
    invoke("reindex")
    invoke("setup", "--shell", "none")
    assert invoke("doctor", "--json").json["ok"] is True


def test_revert_each_kind_of_change_writes_a_new_version(invoke, store_path):
    invoke("remember", "project/api/db", "Postgres 15")
    invoke("remember", "project/api/db", "Postgres 16")
    r = invoke("revert", "project/api/db", "--json").json  # a supersede
    assert (r["reverted"]["version"], r["version"]["version"], r["what"]) == (2, 3, "value")
    assert invoke("get", "project/api/db").stdout.strip() == "Postgres 15"
    invoke("pin", "project/api/db")  # a pin
    invoke("revert", "project/api/db")
    assert invoke("log", "project/api/db", "--json").json[0]["pinned"] is False
    from objstore import open_store
    from objstore.memory.decay import restate
    with open_store(store_path) as st:  # what decay writes for an unused fact
        restate(st, "project/api/db", dormant=True, command="decay")
    r = invoke("revert", "project/api/db", "--json").json  # a decay
    assert r["what"] == "state" and invoke("log", "project/api/db", "--json").json[0]["dormant"] is False
    invoke("remember", "user/editor", "vim")
    invoke("remember", "user/editor", "helix", "--trust", "agent_observed")
    item = invoke("queue", "list", "--json").json[0]["id"]
    invoke("queue", "accept", item[:12])  # an accepted proposal
    assert invoke("get", "user/editor").stdout.strip() == "helix"
    head = invoke("log", "user/editor", "--json").json[0]["id"]
    invoke("revert", head[:10])  # by version id
    assert invoke("get", "user/editor").stdout.strip() == "vim"
    log = invoke("log", "project/api/db", "--json").json
    assert [v["version"] for v in log] == list(range(len(log), 0, -1))  # nothing rewritten
    assert "0 problems" in invoke("fsck").stdout


def test_revert_refuses_what_it_cannot_undo(invoke):
    invoke("remember", "project/api/pw", "hunter2")
    invoke("remember", "project/api/pw", "correct horse")
    invoke("remember", "project/api/pw", "battery staple")
    invoke("revert", "project/api/pw@v1", exit_code=6)  # the first version
    invoke("forget", "project/api/pw@v2", "--yes")
    r = invoke("revert", "project/api/pw@v3", exit_code=6)  # its parent was forgotten
    assert "forgotten" in r.stderr and "hunter2" not in r.stderr
    for v in ("a", "b", "c"):
        invoke("remember", "project/api/port", v)
    r = invoke("revert", "project/api/port@v2", exit_code=6)  # changed since
    assert "changed after v2" in r.stderr
    invoke("revert", "project/api/none", exit_code=4)
    invoke("revert", "project/api/pw@vx", exit_code=2)


def test_audit_records_every_move_and_forget_keeps_the_lines_without_the_ids(tour, invoke, store_path):
    item = invoke("queue", "list", "--json").json[0]["id"]
    invoke("queue", "accept", item[:12])
    invoke("reinforce", "project/api/db")  # a use: old == new
    a = invoke("audit", "--json").json
    cmds = [e["command"] for e in a]
    assert {"remember", "import claude-code", "queue accept", "reinforce"} <= set(cmds)
    assert any(e["ref"].startswith("queue/") for e in a)  # the closed item's lines stay
    assert "Postgres" not in json.dumps(a) and "helix" not in json.dumps(a)
    v1 = invoke("log", "project/api/db", "--json").json[-1]["id"]
    assert any(v1 in (e["old"], e["new"]) for e in a)
    invoke("forget", "project/api/db@v1", "--yes")
    invoke("gc", "--prune=now")
    after = invoke("audit", "--json").json
    assert len(after) > len(a)  # nothing dropped; the forget added its own lines
    assert not any(v1 in (e["old"], e["new"]) for e in after)
    assert any(e["new"] == "forgotten" or e["old"] == "forgotten" for e in after)
    assert v1.encode() not in (store_path / "logs" / "audit").read_bytes()
    assert invoke("audit", "--since", "2999-01-01", "--json").json == []
    assert len(invoke("audit", "-n", "2", "--json").json) == 2


def test_plain_ascii_and_no_color(tour, invoke, mem):
    lines = invoke("log", "project/api/db", "--plain").stdout.splitlines()
    log = invoke("log", "project/api/db", "--json").json
    assert [ln.split("\t")[0] for ln in lines] == [v["id"] for v in log]  # id first, one record a line
    assert all(ln.count("\t") == lines[0].count("\t") for ln in lines)
    assert lines[0].split("\t")[3] == "Postgres 16 on port 5433"
    invoke("remember", "user/note", "line one\nline\ttwo")
    keys = invoke("keys", "--plain").stdout.splitlines()
    assert any(ln.endswith("line one\\nline\\ttwo") for ln in keys)
    sess = invoke("sessions", "--plain").stdout.splitlines()
    assert len(sess) == len(invoke("sessions", "--json").json)
    assert invoke("reflog", "--plain").stdout.count("\n") == len(invoke("reflog", "--json").json)
    hits = invoke("recall", "postgres", "--all-projects", "--plain").stdout.splitlines()
    assert hits and all(len(h.split("\t")[0]) == 64 for h in hits)
    invoke("remember", "user/cafe", "naïve résumé … done →")
    r = mem("--ascii", "get", "user/cafe")
    assert r.stdout.isascii() and "..." in r.stdout and "->" in r.stdout
    r = mem("keys", env={"PYTHONIOENCODING": "ascii"})  # a non-UTF-8 locale: ASCII automatically
    assert r.stdout.isascii() and r.exit_code == 0
    from click.testing import CliRunner
    from cmds.main import cli
    out = CliRunner().invoke(cli, ["diff", "project/api/db"], color=True, env={"NO_COLOR": "1"}).stdout
    assert "\x1b[" not in out and "[-15-]" in out
    colored = CliRunner().invoke(cli, ["diff", "project/api/db"], color=True).stdout
    assert "\x1b[" in colored


def test_scan_reaches_remotes_and_follows_a_forget(invoke, tmp_path, monkeypatch):
    import shutil
    src = tmp_path / "transcripts"
    shutil.copytree(SAMPLE, src)
    f = next(src.rglob("5f0c9a52*.jsonl"))
    text = f.read_text().replace("leaks connections", "leaks connections canary-owl-4411")
    f.write_text(text.replace("Understood:", "Understood canary-elk-8822:"))  # another turn
    invoke("import", "claude-code", str(src))
    invoke("remember", "project/acme-api/x", "canary-owl-4411 lives here")
    (tmp_path / "remote").mkdir()
    invoke("remote", "add", "usb", str(tmp_path / "remote"), "--no-encrypt")
    invoke("push", "usb")
    places = {h["place"] for h in invoke("scan", "canary-owl-4411", "--json", exit_code=1).json}
    assert {"object", "transcript", "remote usb"} <= places
    invoke("forget", "--match", "canary-owl-4411", "--yes")
    invoke("gc", "--prune=now")
    invoke("push", "usb")  # the forget follows the value to the remote
    hits = invoke("scan", "canary-owl-4411", "--json", exit_code=1).json
    assert {h["place"] for h in hits} == {"transcript"}  # only the agent's own transcript still has it
    invoke("forget", "--match", "canary-elk-8822", "--scrub-sources", "--yes")
    invoke("gc", "--prune=now")
    invoke("push", "usb")
    assert invoke("scan", "canary-elk-8822", "--json").json == []  # nowhere at all


def test_doctor_reports_an_unreadable_remote(invoke, tmp_path, monkeypatch):
    import sys
    monkeypatch.setenv("MEM_HOOK_COMMAND", str(Path(sys.executable).parent / "mem"))
    invoke("setup", "--shell", "none")
    (tmp_path / "no-such-disk" / "mem").mkdir(parents=True)
    invoke("remote", "add", "gone", str(tmp_path / "no-such-disk" / "mem"))
    (tmp_path / "no-such-disk" / "mem").rmdir()         # the disk is gone since the add
    r = invoke("doctor", "--json", exit_code=1).json
    f = [x for x in r["findings"] if x["check"] == "remotes"]
    assert f and "gone" in f[0]["message"] and f[0]["fix"].startswith("mem remote list")
    invoke("remote", "remove", "gone")
    assert invoke("doctor", "--json").json["ok"] is True


def test_doctor_reports_a_config_that_stops_capture_and_a_partial_index(invoke, store_path, tmp_path, monkeypatch):
    """Issue 21 re-attack: an unreadable config.toml stops capture, seen only in the hook
    log; an index recreated by a write after its deletion holds only that write."""
    import shutil
    import sys
    monkeypatch.setenv("MEM_HOOK_COMMAND", str(Path(sys.executable).parent / "mem"))
    invoke("setup", "--shell", "none")
    invoke("remember", "user/a", "alpha")
    invoke("remember", "user/b", "beta")
    (store_path / "config.toml").write_text("[capture\nexclude = [")
    shutil.rmtree(store_path / "index")
    invoke("remember", "user/c", "gamma")
    r = invoke("doctor", "--json", exit_code=1).json
    checks = {f["check"]: f for f in r["findings"]}
    assert "capture is stopped" in checks["config"]["message"] and "config.toml" in checks["config"]["fix"]
    assert "deleted" in checks["index"]["message"]
    (store_path / "config.toml").unlink()
    invoke("reindex")
    assert invoke("doctor", "--json").json["ok"] is True


def test_import_into_a_store_that_has_the_key_refuses_unless_told(tour, invoke, tmp_path, monkeypatch):
    out = tmp_path / "mem.jsonl"
    invoke("export", "-o", str(out))
    monkeypatch.setenv("MEM_HOME", str(tmp_path / "other"))
    invoke("remember", "project/api/db", "local value")
    r = invoke("import", "jsonl", str(out), exit_code=6)
    assert "already exist here" in r.stderr
    assert invoke("get", "project/api/db").stdout.strip() == "local value"
    assert invoke("sessions", "--json").json == []  # no ref moved
    r = invoke("import", "jsonl", str(out), "--keep-existing", "--json").json
    assert r["refs_kept"] == 1 and invoke("get", "project/api/db").stdout.strip() == "local value"
    invoke("import", "jsonl", str(tmp_path), exit_code=2)  # a folder


def test_bad_input_gets_clear_errors(tour, invoke, tmp_path):
    invoke("reflog", "facts/../../etc/passwd", exit_code=2)
    invoke("export", "--scope", "bad scope", exit_code=2)
    (tmp_path / "afile").write_text("x")
    invoke("export", "--format", "markdown", "-o", str(tmp_path / "afile"), exit_code=2)
    # test39 m5: a bad output path is a usage error (2, as a store path whose folder is missing), not 'not found' (4)
    r = invoke("export", "-o", str(tmp_path / "no" / "such" / "x.jsonl"), exit_code=2)
    assert f"{tmp_path / 'no' / 'such'} does not exist" in r.stderr, r.stderr
    r = invoke("export", "-o", str(tmp_path / "afile" / "x.jsonl"), exit_code=2)
    assert "is not a folder" in r.stderr and not (tmp_path / "no").exists(), r.stderr
    r = invoke("scan", input="canary-nothing-here\n")
    assert "found nowhere" in r.stdout and "canary" not in r.stderr


def test_revert_a_rejected_proposal(invoke):
    invoke("remember", "user/editor", "vim")
    invoke("remember", "user/editor", "helix", "--trust", "agent_observed")
    item = invoke("queue", "list", "--json").json[0]["id"]
    invoke("queue", "reject", item[:12])
    invoke("remember", "user/editor", "helix", "--trust", "agent_observed", exit_code=6)  # refused now
    r = invoke("revert", item[:12], "--json").json
    assert r["requeued"] and r["tombstone_dropped"]
    assert [i["id"] for i in invoke("queue", "list", "--json").json] == [item]
    invoke("queue", "accept", item[:12])
    assert invoke("get", "user/editor").stdout.strip() == "helix"
    assert "0 problems" in invoke("fsck").stdout


def test_porcelain_on_the_shared_transcripts(invoke, tmp_path, monkeypatch):
    """reflog, diff, blame, revert, stats and the export round trip on a store
    built from the shared Claude Code transcripts (skipped without ../shared)."""
    from tests.conftest import shared_path
    src = shared_path("data", "transcripts", "claude-code-log")
    invoke("import", "claude-code", str(src))
    hit = next(h for h in invoke("search", "test", "--json").json if h["kind"] == "turn")
    from objstore import open_store, remember
    import os
    with open_store(os.environ["MEM_HOME"]) as st:
        remember(st, "project/clmail/ci", "CI runs the test suite", sources=(hit["id"],))
        remember(st, "project/clmail/ci", "CI runs the test suite and the linter", sources=(hit["id"],))
    assert invoke("blame", "project/clmail/ci", "--json").json["sources"][0]["session"] == hit["session"]
    assert "{+ and the linter+}" in invoke("diff", "project/clmail/ci").stdout
    invoke("revert", "project/clmail/ci")
    assert invoke("get", "project/clmail/ci").stdout.strip() == "CI runs the test suite"
    s = invoke("stats", "--json").json
    assert s["objects"]["turn"] > 500 and sum(s["sessions_by_project"].values()) >= 10
    assert len(invoke("reflog", "--json").json) >= 10
    out = tmp_path / "x.jsonl"
    invoke("export", "-o", str(out))
    before = {k: invoke("log", k, "--json").json for k in ("project/clmail/ci",)}
    found = [h["id"] for h in invoke("search", "clmail project", "-n", "1000", "--json").json]
    monkeypatch.setenv("MEM_HOME", str(tmp_path / "copy"))
    invoke("import", "jsonl", str(out))
    assert {k: invoke("log", k, "--json").json for k in before} == before
    # the same hits, the best first; near ties may swap: tantivy's BM25 statistics count the documents of the
    # copy's index as its own segments hold them (deleted ones included), not as the original's did
    again = [h["id"] for h in invoke("search", "clmail project", "-n", "1000", "--json").json]
    assert again[0] == found[0] and sorted(again) == sorted(found), (again, found)
    assert "0 problems" in invoke("fsck").stdout


def test_an_output_inside_the_store_is_refused_and_nothing_is_replaced(tour, invoke, store_path, tmp_path):
    """test25 T18: `mem export -o ~/.mem/config.toml` replaced the store's
    settings (its capture exclusions with them) with the export; `-o
    ~/.mem/config` broke every command until fsck --repair."""
    (store_path / "config.toml").write_text('[capture]\nexclude = ["/tmp/clients/acme"]\n')
    before = {p: p.read_bytes() for p in (store_path / "config.toml", store_path / "config")}
    link = tmp_path / "link-to-store"
    link.symlink_to(store_path)
    for out in (store_path / "config.toml", store_path / "config", link / "config.toml", store_path / "new.jsonl"):
        r = invoke("export", "-o", str(out), exit_code=2)
        assert "is inside the store" in r.stderr, r.stderr
        r = invoke("export", "--format", "markdown", "-o", str(out.parent / "md"), exit_code=2)
    r = invoke("remote", "key", "export", "-o", str(store_path / "config"), exit_code=2)
    assert "is inside the store" in r.stderr, r.stderr
    assert {p: p.read_bytes() for p in before} == before
    assert not (store_path / "new.jsonl").exists() and not (store_path / "md").exists()
    assert invoke("exclude", "--list").stdout.strip() == "/tmp/clients/acme"
    invoke("export", "-o", str(tmp_path / "out.jsonl"))      # outside the store: written
    assert (tmp_path / "out.jsonl").stat().st_size > 0
