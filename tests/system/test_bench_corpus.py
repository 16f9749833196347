"""bench/gen_corpus.py: a small synthetic Claude Code corpus is deterministic, in the
real on-disk format, read by our own parser without a skipped line, and imported
and searched end to end (its planted needles are found in the right sessions)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GEN = REPO / "bench" / "gen_corpus.py"
ARGS = ["--sessions", "5", "--turns", "200", "--seed", "7", "-q"]


def generate(out: Path, *extra: str) -> dict:
    subprocess.run([sys.executable, str(GEN), str(out), *ARGS, *extra], check=True, timeout=120, cwd=REPO)
    return json.loads((out / "corpus.json").read_text())


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def transcripts(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("corpus") / "projects"
    return out, generate(out)


def test_same_arguments_give_identical_bytes(corpus, tmp_path):
    out, summary = corpus
    again = tmp_path / "again"
    generate(again)
    a, b = tree(out), tree(again)
    assert a.keys() == b.keys()
    assert all(a[k] == b[k] for k in a)
    for rel in a:   # transcripts' mtimes come from record timestamps, not the clock
        if rel.endswith((".jsonl", ".meta.json")):
            assert (out / rel).stat().st_mtime == (again / rel).stat().st_mtime
    other = tmp_path / "other"
    generate(other, "--seed", "8")
    assert tree(other).keys() != a.keys()


def test_shards_written_in_parallel_give_the_same_bytes(corpus, tmp_path):
    """Sessions in shards of --shard-sessions, each with its own size and
    tool-call feedback: the same bytes whichever --jobs writes them, the turn
    count still exact, and a corpus of one shard the same as without shards."""
    one, two = tmp_path / "j1", tmp_path / "j2"
    s1 = generate(one, "--shard-sessions", "2", "-j", "1")
    s2 = generate(two, "--shard-sessions", "2", "-j", "2")
    a, b = tree(one), tree(two)
    assert a.keys() == b.keys() and all(a[k] == b[k] for k in a)
    assert s1 == s2 and s1["args"]["shard_sessions"] == 2
    assert s1["counts"]["turns"] == 200 and s1["counts"]["sessions"] == 5
    assert a != tree(corpus[0])   # three shards steer apart from one
    whole = tmp_path / "whole"
    generate(whole, "--shard-sessions", "5", "-j", "2")
    assert tree(whole) == tree(corpus[0])


def test_shape_and_counts(corpus):
    out, s = corpus
    c = s["counts"]
    assert c["sessions"] == 5 and c["turns"] == 200 == c["prompts"] + c["assistant_messages"]
    assert c["subagents"] >= 1 and c["compactions"] >= 1 and c["thinking_blocks"] > 0
    assert abs(c["tool_calls"] - s["args"]["tool_calls"]) <= max(5, 0.05 * s["args"]["tool_calls"])
    main_files = [p for p in transcripts(out) if "subagents" not in p.parts]
    agent_files = [p for p in transcripts(out) if "subagents" in p.parts]
    assert len(main_files) == 5 and len(agent_files) == c["subagents"]
    for p in agent_files:   # >= 2.1.2 layout: <project>/<session>/subagents/agent-<id>.jsonl + .meta.json
        assert p.parent.name == "subagents" and p.name.startswith("agent-")
        assert (out / p.parent.parent.name).with_suffix(".jsonl").name in {m.name for m in main_files}
        meta = json.loads(p.with_name(p.stem + ".meta.json").read_text())
        assert meta["agentType"] and meta["description"]


def test_every_line_is_a_record_in_the_real_format(corpus):
    out, s = corpus
    types: Counter = Counter()
    msg_records: Counter = Counter()
    boundary_then_summary = 0
    for p in transcripts(out):
        prev_ts, prev = "", None
        for line in p.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            assert isinstance(rec, dict) and isinstance(rec.get("type"), str)
            types[rec["type"]] += 1
            ts = rec.get("timestamp")
            if ts:
                assert ts >= prev_ts, f"time goes back in {p}"
                prev_ts = ts
            if rec["type"] in ("user", "assistant"):
                assert rec["uuid"] and "parentUuid" in rec and rec["sessionId"] and rec["cwd"]
                assert rec["isSidechain"] is ("subagents" in p.parts)
            if rec["type"] == "assistant":
                assert len(rec["message"]["content"]) == 1    # one record per content block
                msg_records[rec["message"]["id"]] += 1
            if prev and prev.get("subtype") == "compact_boundary":
                assert prev["parentUuid"] is None and prev["logicalParentUuid"]
                assert rec["type"] == "user" and rec["isCompactSummary"] is True
                assert rec["message"]["content"].startswith("This session is being continued")
                boundary_then_summary += 1
            prev = rec
    assert boundary_then_summary == s["counts"]["compactions"]
    assert len(msg_records) == s["counts"]["assistant_messages"]
    assert max(msg_records.values()) > 1                  # split responses share message.id
    for t in ("file-history-snapshot", "attachment", "progress", "system"):
        assert types[t] > 0, t


def test_our_reader_parses_everything(corpus):
    from objstore.capture.claude_code import ParseStats, discover, parse_file

    out, s = corpus
    c = s["counts"]
    stats = ParseStats()
    roles: Counter = Counter()
    sessions = set()
    for path in discover([out]):
        for t in parse_file(path, stats):
            roles[t.role] += 1
            sessions.add(t.session)
    assert stats.files == 5 + c["subagents"]
    assert stats.lines_skipped == 0 and stats.lines == s["records"]
    assert len(sessions) == 5 + c["subagents"]
    assert sum(".agent-" in x for x in sessions) == c["subagents"]
    assert roles["user"] == c["prompts"]
    assert roles["assistant"] == c["assistant_messages"]
    assert roles["tool"] == c["tool_results_nonempty"]


def test_import_and_search_find_the_needles(corpus, mem):
    out, s = corpus
    c = s["counts"]
    r = mem("import", "claude-code", str(out), "--json").json
    assert r["lines_skipped"] == 0
    assert r["sessions"] == 5 + c["subagents"]
    expected = c["prompts"] + c["assistant_messages"] + c["tool_results_nonempty"]
    assert r["turns_seen"] == expected
    assert r["turns_added"] == expected - r.get("turns_skipped", 0)
    needles = json.loads((out / "needles.json").read_text())
    assert {n["kind"] for n in needles} == {"prompt", "assistant", "tool", "subagent"}
    for n in needles:
        hits = mem("search", *n["query"].split(), "--json").json
        assert hits and hits[0]["session"] == n["session"], (n, hits[:3])
