"""Write the bundled demo transcripts (cmds/data/sample-projects) in the real
Claude Code on-disk format: split assistant records, tool_use/tool_result,
thinking, an attachment echoing hook output, a subagent file (>= 2.1.2
layout) and one deliberately broken line.  Written by us for the demo; run
``python bench/make_sample.py`` to regenerate."""

import json
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "cmds" / "data" / "sample-projects"
NS = uuid.UUID("6b1d3f2e-0000-4000-8000-000000000000")


def uid(*parts) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def session(sid, cwd, turns, t0, agent=None):
    recs, parent, minute = [], None, 0
    for i, (role, content) in enumerate(turns):
        minute += 1
        ts = f"{t0}:{minute:02d}.000Z"
        env = {"parentUuid": parent, "isSidechain": agent is not None, "userType": "external", "cwd": cwd,
               "sessionId": sid, "version": "2.1.42", "gitBranch": "main", "timestamp": ts}
        if agent:
            env["agentId"] = agent
        if role == "user":
            u = uid(sid, agent, i)
            recs.append({**env, "type": "user", "message": {"role": "user", "content": content}, "uuid": u})
            parent = u
        elif role == "assistant":
            mid = "msg_" + uid(sid, agent, i, "m").replace("-", "")[:24]
            for j, block in enumerate(content):  # one record per content block, as Claude Code writes them
                u = uid(sid, agent, i, j)
                recs.append({**env, "type": "assistant", "requestId": "req_" + mid[4:],
                             "message": {"model": "claude-sonnet-4-5", "id": mid, "type": "message",
                                         "role": "assistant", "content": [block], "stop_reason": None,
                                         "usage": {"input_tokens": 12, "output_tokens": 40}},
                             "uuid": u})
                parent = u
        elif role == "attachment":
            u = uid(sid, agent, i)
            recs.append({**env, "type": "attachment", "attachment": {"type": "hook_additional_context",
                                                                    "content": content}, "uuid": u})
            parent = u
    return recs


def write(path: Path, recs, broken: str | None = None):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r, ensure_ascii=False) for r in recs]
    if broken is not None:
        lines.insert(len(lines) // 2, broken)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main():
    cwd = "/home/dev/acme-api"
    proj = OUT / "-home-dev-acme-api"
    s1 = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11"
    write(proj / f"{s1}.jsonl", [
        {"type": "file-history-snapshot", "messageId": uid(s1, "snap"), "snapshot": {"messageId": uid(s1, "snap"),
         "trackedFileBackups": {}, "timestamp": "2026-03-02T09:00:00.000Z"}, "isSnapshotUpdate": False},
        *session(s1, cwd, [
            ("attachment", "<mem-context>injected memory: never capture this</mem-context>"),
            ("user", "The integration tests are flaky: the database fixture in tests/conftest.py leaks connections. Can you look?"),
            ("assistant", [{"type": "thinking", "thinking": "The pool is probably created per test without being closed.", "signature": "c2ln"},
                           {"type": "text", "text": "Let me read the fixture first."},
                           {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/home/dev/acme-api/tests/conftest.py"}}]),
            ("user", [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "import pytest\n\n@pytest.fixture\ndef db():\n    pool = create_pool(DSN)\n    yield pool.acquire()\n"}]),
            ("assistant", [{"type": "text", "text": "Found it: the `db` fixture creates a pool per test and never closes it. I'll make it session-scoped and close the pool on teardown."}]),
            ("user", "Good. Note that we run Postgres 15 on port 5432 locally; CI uses the same."),
            ("assistant", [{"type": "text", "text": "Understood: Postgres 15, port 5432, locally and in CI. The fixture now uses a session-scoped pool and the flaky tests pass 20 runs in a row."}]),
        ], "2026-03-02T09:00"),
    ], broken='{"type":"user","message":{"role":"user","content":"truncated line')
    s2 = "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33"
    write(proj / f"{s2}.jsonl", session(s2, cwd, [
        ("user", "We moved to Postgres 16; the local port is now 5433. Please update the docker-compose file and the README."),
        ("assistant", [{"type": "text", "text": "I'll ask a subagent to find every place that mentions the old port."},
                       {"type": "tool_use", "id": "toolu_02", "name": "Task", "input": {"description": "find port mentions", "subagent_type": "Explore"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_02", "content": "docker-compose.yml:12 and README.md:40 mention 5432."}]),
        ("assistant", [{"type": "text", "text": "Updated docker-compose.yml and README.md to Postgres 16 on port 5433."}]),
    ], "2026-03-09T14:00"))
    agent = "a7c41e9d2b0f3e6a1"
    write(proj / s2 / "subagents" / f"agent-{agent}.jsonl", session(s2, cwd, [
        ("user", "Find every file that mentions port 5432."),
        ("assistant", [{"type": "tool_use", "id": "toolu_03", "name": "Grep", "input": {"pattern": "5432"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_03", "content": "docker-compose.yml:12:      - \"5432:5432\"\nREADME.md:40:Postgres listens on 5432."}]),
        ("assistant", [{"type": "text", "text": "docker-compose.yml:12 and README.md:40 mention 5432."}]),
    ], "2026-03-09T14:00", agent=agent))
    (proj / s2 / "subagents" / f"agent-{agent}.meta.json").write_text(
        json.dumps({"agentType": "Explore", "description": "find port mentions"}) + "\n")


if __name__ == "__main__":
    main()
