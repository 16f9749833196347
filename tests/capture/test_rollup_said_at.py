"""A sub-agent's rollup summary is valid from the sub-agent's last turn, not
from when it was written: ``mem import`` of an old transcript wrote it "now",
so an old sub-agent report outranked, unmarked, the person's later
correction and was the only thing the prompt injection served (test32 X20)."""

from __future__ import annotations

import json
from pathlib import Path


def _line(uuid: str, parent: str, ts: str, cwd: str, role: str, text: str, agent: str = "") -> str:
    rec = {"type": role, "sessionId": "s5", "uuid": uuid, "timestamp": ts, "cwd": cwd,
           "message": {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}}
    if parent:
        rec["parentUuid"] = parent
    if agent:
        rec.update(agentId=agent, isSidechain=True)
    return json.dumps(rec) + "\n"


def _transcript(tmp_path: Path) -> Path:
    cwd = tmp_path / "proj" / "api"
    cwd.mkdir(parents=True)
    root = tmp_path / "projects" / "-proj-api"
    (root / "s5" / "subagents").mkdir(parents=True)
    c = str(cwd)
    (root / "s5.jsonl").write_text(
        _line("u1", "", "2026-11-01T10:00:00Z", c, "user", "find out which port the api database uses")
        + _line("a1", "u1", "2026-11-01T10:00:05Z", c, "assistant", "I will ask a sub-agent.")
        + _line("u3", "a1", "2026-11-20T09:00:00Z", c, "user", "Update: we moved the api database to port 6543 today.")
        + _line("a3", "u3", "2026-11-20T09:00:05Z", c, "assistant", "Understood, the api database is on port 6543 now."))
    (root / "s5" / "subagents" / "agent-q1.jsonl").write_text(
        _line("x1", "", "2026-11-01T10:01:00Z", c, "user", "Find which port the api database uses", "q1")
        + _line("x2", "x1", "2026-11-01T10:02:00Z", c, "assistant", "The api database uses port 5432 (config/db.yml).",
                "q1"))
    return tmp_path / "projects"


def test_an_imported_rollup_is_valid_from_the_sub_agents_last_turn_and_marked_by_the_later_correction(tmp_path, mem):
    mem("import", "claude-code", str(_transcript(tmp_path)))
    key = "project/api/summary/s5.agent-q1"
    log = mem("log", key).stdout
    assert "valid 2026-11-01T10:02:00Z" in log, log          # base: valid from the import's clock
    block = mem("context", "--project", "api", "--prompt", "which port does the api database use?").stdout
    assert "port 6543 today" in block, block                 # base: the 5432 report alone
    summary = next(ln for ln in block.splitlines() if key in ln)
    assert "MAY BE OUT OF DATE" in summary and "5432" in summary, block
    hits = mem("recall", "which port does the api database use", "--project", "api", "--json").json
    fact = next(h for h in hits["hits"] if h.get("key") == key)
    assert fact["date"] == "2026-11-01T10:02:00Z", fact
    assert "port 6543 today" in (fact["updated_later"] or {}).get("text", ""), fact   # base: None
