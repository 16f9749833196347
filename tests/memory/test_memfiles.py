"""Owner-approved memory files: soul.md, memory.md, user.md (issue 17)."""

from __future__ import annotations

import json

import pytest


def show(invoke, name):
    return invoke("memory", "show", name, "--json").json[0]


def test_add_replace_remove_by_full_text_with_counts(invoke):
    r = invoke("memory", "add", "memory", "The api runs on port 8443 since June.")
    assert r.stdout.strip() == "memory.md updated (37 of 2,200 characters)"
    invoke("memory", "add", "memory", "CI needs Postgres 16.")
    f = show(invoke, "memory")
    assert f["entries"] == ["The api runs on port 8443 since June.", "CI needs Postgres 16."]
    assert f["chars"] == len("The api runs on port 8443 since June.\n§\nCI needs Postgres 16.")
    invoke("memory", "replace", "memory", "CI needs Postgres 16.", "CI needs Postgres 17.")
    invoke("memory", "remove", "memory", "The api runs on port 8443 since June.")
    assert show(invoke, "memory")["entries"] == ["CI needs Postgres 17."]
    log = invoke("log", "user/memory/memory.md", "--json").json
    assert len(log) == 4  # every edit is a version: the file's history


def test_rules_refuse_and_change_nothing(invoke):
    invoke("memory", "add", "memory", "one")
    before = show(invoke, "memory")
    r = invoke("memory", "add", "memory", "one", exit_code=6)  # a duplicate
    assert "twice" in r.stderr
    r = invoke("memory", "replace", "memory", "zero", "x", exit_code=6)  # a stale OLD
    assert "no entry that is exactly 'zero'" in r.stderr and "nothing changed" in r.stderr
    invoke("memory", "add", "memory", "   ", exit_code=2)  # empty
    invoke("memory", "add", "memory", "a\n§\nb", exit_code=2)  # holds a separator line
    big = "x" * 2300
    r = invoke("memory", "add", "memory", big, exit_code=6)
    assert r.stderr.strip().splitlines()[0] == ("Error: memory.md would be 2,306 of 2,200 characters; "
                                                "use consolidate to move entries to the archive.")
    assert show(invoke, "memory") == before
    invoke("memory", "add", "user", "u" * 1376, exit_code=6)  # user.md: 1,375


def test_consolidate_moves_to_the_archive_and_journals(invoke, tmp_path, monkeypatch):
    monkeypatch.setenv("MEM_SESSION", "sess-42")
    for e in ("keep me", "rewrite me", "move me", "drop me"):
        invoke("memory", "add", "memory", e)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"entries": [{"old": "keep me", "op": "keep"},
                                            {"old": "rewrite me", "op": "rewrite", "new": "rewritten"},
                                            {"old": "move me", "op": "move"}, {"old": "drop me", "op": "drop"}],
                                "add": ["brand new"]}))
    r = invoke("memory", "consolidate", "memory", str(plan))
    assert "moved 1 entry to archive.md" in r.stdout
    assert show(invoke, "memory")["entries"] == ["keep me", "rewritten", "brand new"]
    archive = invoke("get", "user/memory/archive.md").stdout
    assert archive.startswith("§ moved ") and " from memory.md in session sess-42\nmove me" in archive
    rec = invoke("memory", "journal", "--json").json[-1]
    assert (rec["action"], rec["file"], rec["session"]) == ("consolidate", "memory.md", "sess-42")
    assert rec["before"] == ["keep me", "rewrite me", "move me", "drop me"]
    assert rec["after"] == ["keep me", "rewritten", "brand new"]
    hits = invoke("recall", "move me", "--all-projects", "--json").json["hits"]
    assert any(h.get("key") == "user/memory/archive.md" for h in hits)  # recall finds a moved entry
    # a consolidate that leaves an entry out, or names one twice, changes nothing
    plan.write_text(json.dumps({"entries": [{"old": "keep me", "op": "keep"}]}))
    assert "leaves out" in invoke("memory", "consolidate", "memory", str(plan), exit_code=6).stderr
    plan.write_text(json.dumps({"entries": [{"old": "keep me", "op": "keep"}, {"old": "keep me", "op": "drop"},
                                            {"old": "rewritten", "op": "keep"}, {"old": "brand new", "op": "keep"}]}))
    assert "twice" in invoke("memory", "consolidate", "memory", str(plan), exit_code=6).stderr


def test_agent_proposals_wait_for_the_owner(invoke):
    invoke("memory", "add", "memory", "The api runs on port 8080.")
    r = invoke("memory", "propose", "replace", "memory", "The api runs on port 8080.",
               "The api runs on port 8443.", "--by", "codex@laptop", "--json").json
    item = r["queued"]
    assert show(invoke, "memory")["entries"] == ["The api runs on port 8080."]  # nothing applied yet
    q = invoke("queue", "list").stdout
    assert "in memory.md replace: The api runs on port 8080." in q  # shown by text, not JSON
    r = invoke("queue", "accept", item[:12])
    assert "memory.md updated (26 of 2,200 characters)" in r.stdout
    assert show(invoke, "memory")["entries"] == ["The api runs on port 8443."]
    assert invoke("memory", "journal", "--json").json[-1]["approval"] == item
    invoke("memory", "propose", "add", "soul", "Be terse.", exit_code=6)  # soul.md: the owner's alone
    # a proposal that went stale before approval changes nothing
    item = invoke("memory", "propose", "remove", "memory", "The api runs on port 8443.", "--json").json["queued"]
    invoke("memory", "replace", "memory", "The api runs on port 8443.", "The api runs on port 9000.")
    assert "no entry" in invoke("queue", "accept", item[:12], exit_code=6).stderr
    assert show(invoke, "memory")["entries"] == ["The api runs on port 9000."]


def test_session_block_renders_the_files_first_and_stays_frozen(invoke, store_path):
    invoke("remember", "user/editor", "helix")
    invoke("memory", "add", "memory", "Deploys on Fridays only.")
    block = invoke("context", "--session", "s1").stdout
    assert block.index("# soul.md\n(empty)") < block.index("# memory.md (24 of 2,200 characters)\nDeploys")
    assert "# user.md (0 of 1,375 characters)\n(empty)" in block
    assert block.index("# user.md") < block.index("user/editor") and "helix" in block
    assert "user/memory/memory.md" not in block  # the file is not listed again as a fact
    item = invoke("memory", "propose", "add", "memory", "Staging is on port 6000.", "--json").json["queued"]
    invoke("queue", "accept", item[:12])  # approved mid-session
    assert invoke("context", "--session", "s1", "--source", "resume").stdout == block  # the bytes it started with
    nxt = invoke("context", "--session", "s2").stdout
    assert "Staging is on port 6000." in nxt and "# memory.md (51 of 2,200 characters)" in nxt


def test_a_file_edited_by_hand_past_its_limit_is_flagged(invoke):
    invoke("memory", "add", "user", "short")
    invoke("remember", "user/memory/user.md", "y" * 1500)  # written around the memory commands
    block = invoke("context", "--session", "s9").stdout
    assert "# user.md (1,500 of 1,375 characters) OVER ITS LIMIT" in block


def test_forget_match_removes_the_text_from_every_version_archive_journal_and_index(invoke, store_path, tmp_path):
    canary = "canary-memfile-7731"
    invoke("memory", "add", "memory", f"The staging password hint is {canary}.")
    invoke("memory", "add", "memory", "Another entry.")
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps({"entries": [{"old": f"The staging password hint is {canary}.", "op": "move"},
                                            {"old": "Another entry.", "op": "keep"}]}))
    invoke("memory", "consolidate", "memory", str(plan))
    invoke("forget", "--match", canary, "--yes")
    invoke("gc", "--prune=now")
    for p in store_path.rglob("*"):
        if p.is_file():
            assert canary.encode() not in p.read_bytes(), p
    from objstore import Store
    from objstore.memory.forget import scan_store
    assert scan_store(store_path, [canary.encode()]) == []
    assert invoke("search", canary, "--json").json == []
    assert show(invoke, "memory")["entries"] == ["Another entry."]
    assert "0 problems" in invoke("fsck").stdout
    Store  # noqa: B018 - imported for the scan above's store layout


def test_review_shell_shows_a_proposal_by_text_and_accepts_it(store, invoke):
    from objstore.memory.memfiles import apply_edit, propose_edit
    from tests.shell.test_shell_session import session
    apply_edit(store, "user", {"action": "add", "file": "memory", "text": "The api runs on port 8080."})
    item = propose_edit(store, "user", {"action": "replace", "file": "memory", "old": "The api runs on port 8080.",
                                        "new": "The api runs on port 8443."}, owner="codex").item
    out = "\n".join(session(store, f"show\raccept {item[:8]}\rquit\r"))    # (typed ahead: nothing waits here)
    assert "in memory.md replace: The api runs on port 8080.  →  The api runs on port 8443." in out
    assert '"action"' not in out  # never the JSON plan
    assert "memory.md updated (26 of 2,200 characters)" in out
    block = invoke("context", "--session", "next-session").stdout
    assert "# memory.md (26 of 2,200 characters)\nThe api runs on port 8443." in block


def test_full_files_stay_within_the_session_budget(invoke):
    for name, limit in (("soul", 4000), ("memory", 2200), ("user", 1375)):
        invoke("memory", "add", name, "z" * (limit - 5))
    invoke("remember", "user/editor", "helix")
    for budget in (1500, 3000):
        text = invoke("context", "--session", f"b{budget}", "--budget", str(budget), "--json").json["text"]
        assert -(-len(text) // 4) <= budget  # the estimate the budget uses: characters / 4
    small = invoke("context", "--session", "b1500", "--budget", "1500").stdout
    assert "cut to fit the session budget" in small and small.index("# soul.md") < small.index("cut to fit")
    big = invoke("context", "--session", "b9000", "--budget", "9000").stdout
    assert "cut to fit" not in big and "user/editor" in big and "helix" in big


def test_import_claude_memory_proposes_each_entry_once(invoke, tmp_path):
    home = tmp_path / "claude"
    (home / "projects" / "-home-dev-acme-api" / "memory").mkdir(parents=True)
    (home / "CLAUDE.md").write_text("# Me\n\n- I use helix.\n- Answer tersely.\n")
    (home / "projects" / "-home-dev-acme-api" / "s.jsonl").write_text(json.dumps({"cwd": "/home/dev/acme-api"}) + "\n")
    (home / "projects" / "-home-dev-acme-api" / "memory" / "notes.md").write_text(
        "The api runs on port 8443.\n\nCI needs Postgres 16.\n")
    r = invoke("import", "claude-memory", str(home), "--json").json
    assert (r["files"], r["proposed"]) == (2, 4)
    assert invoke("memory", "show", "user", "--json").json[0]["entries"] == []  # nothing applied
    again = invoke("import", "claude-memory", str(home), "--json").json
    assert (again["proposed"], again["present"]) == (0, 4)  # idempotent
    items = invoke("queue", "list", "--json").json
    assert {i["key"] for i in items} == {"user/memory/user.md", "project/acme-api/memory/memory.md"}
    for i in items:
        invoke("queue", "accept", i["id"][:12])
    assert invoke("memory", "show", "user", "--json").json[0]["entries"] == ["I use helix.", "Answer tersely."]
    proj = invoke("memory", "show", "memory", "--project", "acme-api", "--json").json[0]
    assert proj["entries"] == ["The api runs on port 8443.", "CI needs Postgres 16."]
    assert invoke("import", "claude-memory", str(home), "--json").json["proposed"] == 0


def test_promote_standing_loads_everywhere_and_untrusted_is_refused(invoke, store_path):
    invoke("remember", "project/other/style", "Review PRs within a day")
    invoke("promote", "project/other/style", "--standing")
    block = invoke("context", "--session", "p1", "--project", "acme").stdout  # another project's session
    assert "Standing:\n- project/other/style" in block and "Review PRs within a day" in block
    assert invoke("log", "project/other/style", "--json").json[0]["id"]  # promotion is a version
    invoke("remember", "project/other/style", "Review PRs within two days")  # the owner's new value stays curated
    assert "Review PRs within two days" in invoke("context", "--session", "p2", "--project", "acme").stdout
    invoke("promote", "project/other/style", "--demote")
    assert "Standing:" not in invoke("context", "--session", "p3", "--project", "acme").stdout
    invoke("remember", "project/x/seen", "an agent saw this", "--trust", "agent_observed")
    r = invoke("promote", "project/x/seen", exit_code=6)
    assert "not yours" in r.stderr
    invoke("promote", "user/memory/memory.md", exit_code=6)
    invoke("promote", "project/x/nothing", exit_code=4)


def test_a_curated_fact_whose_source_is_forgotten_goes_to_review(invoke, store_path):
    from pathlib import Path
    sample = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"
    invoke("import", "claude-code", str(sample))
    hit = next(h for h in invoke("search", "postgres", "--json").json if h["kind"] == "turn")
    from objstore import open_store, remember
    with open_store(store_path) as st:
        remember(st, "project/acme-api/db", "Postgres 15 on port 5432", sources=(hit["id"],))
    invoke("promote", "project/acme-api/db")
    invoke("forget", hit["id"], "--yes")
    items = invoke("queue", "list", "--json").json
    assert any(i["key"] == "project/acme-api/db" and i["kind"] == "conflict" and "needs review" in i["note"]
               for i in items)


def test_the_journal_never_stops_an_edit(invoke):
    """mf32's finding: the journal was one growing value; after ~20 edits of a
    full memory.md the next edit failed with "body is longer than 100000
    characters". Its current value now keeps the newest records."""
    from objstore.memory.memfiles import JOURNAL_MAX_CHARS
    entries = [f"entry {n}: " + "the build cache lives on ci-4 and is cleared weekly " * 3 for n in range(12)]
    for e in entries:
        invoke("memory", "add", "memory", e[:180])
    for n in range(30):   # each edit journals the whole file before and after (~4 KB a record)
        invoke("memory", "replace", "memory", entries[n % 12][:180], entries[n % 12][:179] + "!")
        entries[n % 12] = entries[n % 12][:179] + "!"
    text = invoke("get", "user/memory/journal").stdout
    assert len(text) <= JOURNAL_MAX_CHARS + 1
    last = json.loads(text.strip().splitlines()[-1])
    assert last["action"] == "replace" and last["file"] == "memory.md"
    assert len(invoke("log", "user/memory/journal", "--json").json) == 12 + 30   # every record kept in the history
