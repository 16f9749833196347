"""test43 T7: after ``forget --match "Zephyrine Quillborough"``, a SubagentStart whose ``agent_id`` holds the text
wrote the hook's session cache as ``cache/sessions/<session>.agent-zephyrine_quillborough.msgpack``, kept after gc,
while capture hid the agent part (sid43).  The hook's sub-agent namespace is now the hidden one capture uses.
Real ``mem hook claude-code`` processes."""

from __future__ import annotations

import json

from objstore.memory.forget import scan_store

PERSON = {"MEM_AGENT": "0", "MEM_NO_HELPER": "1"}


def _hook(mem, h, event: dict) -> None:
    assert mem(*h, "hook", "claude-code", input=json.dumps(event), env=PERSON).exit_code == 0


def test_a_subagent_id_holding_a_forgotten_text_names_no_file(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "init")
    mem(*h, "remember", "project/t/k", "an ordinary fact for the block", env=PERSON)
    mem(*h, "forget", "--match", "Zephyrine Quillborough", "--yes", env=PERSON)
    base = {"session_id": "plain-sess-1", "transcript_path": None, "cwd": str(tmp_path)}
    _hook(mem, h, {**base, "hook_event_name": "SessionStart", "source": "startup"})
    for sid, agent in (("plain-sess-1", "zephyrine_quillborough"), ("zephyrine-quillborough-2", "helper")):
        _hook(mem, h, {**base, "session_id": sid, "hook_event_name": "SubagentStart", "agent_id": agent,
                       "agent_type": "general-purpose"})
        _hook(mem, h, {**base, "session_id": sid, "hook_event_name": "SubagentStop", "agent_id": agent,
                       "agent_type": "general-purpose", "agent_transcript_path": None})
    mem(*h, "gc", "--prune=now", env=PERSON)
    named = [str(p.relative_to(home)) for p in home.rglob("*") if "zephyrine" in p.name.lower()]
    assert named == [], named
    assert scan_store(home, [b"zephyrine", b"Zephyrine", b"quillborough"]) == []
    # an agent id holding no forgotten text keeps its name (capture and the hook agree on it)
    _hook(mem, h, {**base, "hook_event_name": "SubagentStart", "agent_id": "plainhelper",
                   "agent_type": "general-purpose"})
    assert [p.name for p in (home / "cache" / "sessions").glob("*plainhelper*")], list(home.rglob("*agent*"))
