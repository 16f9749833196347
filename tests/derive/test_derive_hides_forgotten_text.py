"""A ``mem forget --match`` text never leaves the machine through derive
(test23's Z3): a session captured after the forget still holds it (capture
checks only the sessions the forget touched), so derive's excerpts go
through the hiding ``mem show`` and ``mem search`` use
(``tombstones.hider``).  Real ``mem`` processes against a loopback
OpenAI-compatible server that records the exact bytes it receives."""

from __future__ import annotations

import json

from tests.derive._util import Model, transcript

CODENAME = "zebra-lantern-9931"


NEW = "99999999-2222-3333-4444-555555555555"


def _forgot_then_captured(mem, tmp_path) -> None:
    """A store where ``forget --match CODENAME`` ran, then session NEW,
    which holds the text, was imported (stored with it)."""
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "old.jsonl", "11111111-2222-3333-4444-555555555555",
               [("user", f"Our staging codename is {CODENAME}, remember it."), ("assistant", "Noted.")])
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    mem("forget", "--match", CODENAME, "--yes")
    transcript(projects / "new.jsonl", NEW,
               [("user", f"DERIVE-MARK: the staging codename is {CODENAME} and deploys run on fridays"),
                ("assistant", f"Noted: {CODENAME}, fridays."),
                ("user", "and " + "filler " * 568 + "straddle " + CODENAME + " again")])   # derive's 4,000-character cut splits it
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    assert "[forgotten]" in mem("show", NEW[:8]).stdout and CODENAME not in mem("show", NEW[:8]).stdout


def test_derive_never_sends_a_forgotten_match_text(mem, tmp_path):
    _forgot_then_captured(mem, tmp_path)

    model = Model({"DERIVE-MARK": {"facts": [
        {"key": "project/acme-api/deploy/day", "kind": "project", "value": "deploys run on fridays", "turns": [1]}]}})
    env = {"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-test-derive"}
    try:
        shown = mem("derive", "--plan", env=env).stdout
        assert "zebra-lan" not in shown and "[forgotten]" in shown, shown
        r = json.loads(mem("derive", "--json", env=env).stdout)
        assert model.received, "derive made no call"
        for raw in model.received:
            assert b"zebra-lan" not in raw, raw
        prompts = [b["messages"][0]["content"] for _p, _h, b in model.requests]
        assert any("[forgotten] and deploys run on fridays" in p for p in prompts), prompts
        assert [d["rule"] for d in r["decisions"]] == ["write"]    # the rest of the turn still serves
    finally:
        model.close()


def test_the_markdown_export_shows_a_forgotten_match_text_as_forgotten(mem, tmp_path):
    """The markdown tree is for reading, as ``mem show`` is: the same
    hiding.  (The jsonl export keeps every object exact, so it imports
    back with the same ids: docs/forget.md.)"""
    _forgot_then_captured(mem, tmp_path)
    mem("export", "--format", "markdown", "-o", str(tmp_path / "md"))
    text = (tmp_path / "md" / "sessions" / "acme-api" / f"{NEW}.md").read_text()
    assert CODENAME not in text and "the staging codename is [forgotten] and deploys run on fridays" in text, text
    assert not any(CODENAME in p.read_text() for p in (tmp_path / "md").rglob("*.md"))
