"""test27 V2: ``mem sessions`` named a session by the project of its newest
turn and ``mem stats`` by its oldest, so one session was counted under two
projects.  One rule now (``objstore.memory.sessions.session_project``: the
newest turn that knows its project), through real ``mem`` processes."""

from __future__ import annotations

import json

SID = "5e550000-0000-0000-0000-000000000001"


def _moved_session(path) -> None:
    """A Claude Code session begun in /w/alpha-app that moved to /w/beta-svc."""
    rows = []
    for i, cwd in enumerate(["/w/alpha-app", "/w/alpha-app", "/w/beta-svc", "/w/beta-svc"]):
        rows.append({"type": "user" if i % 2 == 0 else "assistant", "sessionId": SID, "cwd": cwd,
                     "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i else None,
                     "timestamp": f"2026-10-01T10:0{i}:00Z",
                     "message": ({"role": "user", "content": f"question {i} about the widget"} if i % 2 == 0 else
                                 {"role": "assistant", "content": [{"type": "text", "text": f"answer {i}"}]})})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_sessions_stats_and_export_name_a_moved_session_by_one_project(mem, tmp_path):
    _moved_session(tmp_path / "cc" / "-w-alpha-app" / f"{SID}.jsonl")
    mem("import", "claude-code", str(tmp_path / "cc"))
    listed = {s["id"]: s["project"] for s in mem("sessions", "--json").json}
    assert listed == {SID: "beta-svc"}
    assert mem("stats", "--json").json["sessions_by_project"] == {"beta-svc": 1}
    out = tmp_path / "export"
    mem("export", "--format", "markdown", "-o", str(out))   # the markdown export names it the same way
    text = "".join(p.read_text() for p in out.rglob("*.md"))
    assert "project: beta-svc" in text and "project: alpha-app" not in text, text[:2000]
