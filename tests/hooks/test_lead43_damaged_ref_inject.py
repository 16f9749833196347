"""fresh43 F9: one damaged fact ref (garbage in ``refs/facts/project/web/host``) made every prompt's memory
injection go silent for every project (``CorruptObject:context`` in the hook log), while SessionStart, ``keys`` and
``context`` skip that key with a warning.  The prompt's gate now skips the damaged key alone.  Real ``mem``
processes."""

from __future__ import annotations

import json

PERSON = {"MEM_AGENT": "0", "MEM_NO_HELPER": "1"}


def _prompt(mem, h, sid: str, cwd) -> str:
    event = {"hook_event_name": "UserPromptSubmit", "session_id": sid, "transcript_path": None,
             "prompt": "which port does the web project use, 8080?", "cwd": str(cwd)}
    r = mem(*h, "hook", "claude-code", input=json.dumps(event), env=PERSON)
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"] if r.stdout.strip() else ""


def test_a_damaged_ref_costs_its_key_not_the_prompts_injection(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "init")
    mem(*h, "remember", "project/web/port", "8080", env=PERSON)
    mem(*h, "remember", "project/web/host", "gamma-host-9933", env=PERSON)
    cwd = tmp_path / "web"
    cwd.mkdir()
    assert "project/web/port" in _prompt(mem, h, "f9f9f9f9-1111-2222-3333-444444444444", cwd)
    (home / "refs" / "facts" / "project" / "web" / "host").write_text("garbage-not-an-id\n")
    said = _prompt(mem, h, "f9f9f9f9-1111-2222-3333-444444444445", cwd)
    assert "project/web/port" in said and "8080" in said, said
    log = home / "logs" / "hooks.log"
    assert not log.exists() or "CorruptObject:context" not in log.read_text()
