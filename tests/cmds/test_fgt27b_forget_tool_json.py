"""Lane fgt27b (test27 V29): a tool call's input is stored as its JSON text,
so a quote, backslash or line break in it is stored as ``\\"``, ``\\\\``,
``\\n``.  ``mem forget --match`` and ``mem scan`` take the text as the
person sees and copies it, and find it in that escaped form too: the forget
removes it from the store's objects and the index, and the scan after it
(and a byte search of every file after ``mem gc --prune=now``) finds it
nowhere.  Real transcripts, real ``mem`` processes."""

from __future__ import annotations

import json

from tests.hooks._util import asst, codex_rollout, files_holding, line, text, tool_use, user


def _store_places(mem, needle: str) -> list[dict]:
    """What ``mem scan`` finds in the store (transcripts left out)."""
    got = mem("scan", needle, "--no-remotes", "--json", exit_code=None)
    hits = json.loads(got.stdout) if got.stdout.strip() else []
    return [h for h in hits if h["place"] != "transcript"]


def _forget_and_check(mem, store_path, needle: str, words: list[str]) -> None:
    assert _store_places(mem, needle), "scan does not find the tool input in the store"
    r = mem("forget", "--match", needle, "--yes")
    assert "nothing matches" not in r.stdout, r.stdout
    mem("gc", "--prune=now")
    assert _store_places(mem, needle) == []
    for w in words:
        assert w.lower() not in mem("search", w, "--json", exit_code=None).stdout.lower()
        assert files_holding(store_path, w) == [], w
    assert "nothing matches" in mem("forget", "--match", needle, "--yes").stdout


def test_forget_match_finds_a_quoted_command_in_a_claude_code_tool_use(tmp_path, mem, store_path):
    sid = "5d1e6f0a-0000-4000-8000-00000000f291"
    t = tmp_path / "cc" / "-home-u-app" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    cmd = 'echo "the merger with Initech closes on May 3" >> notes.txt'
    body = "Layoffs planned:\nteam Osprey in Q2"
    t.write_bytes(line(user("u1", "note it down", sid))
                  + line(asst("a1", "m1", [tool_use("toolu_1", "Bash", command=cmd)], sid))
                  + line(asst("a2", "m2", [tool_use("toolu_2", "Write", file_path="plan.md", content=body)], sid))
                  + line(asst("a3", "m3", [text("noted")], sid)))
    mem("import", "claude-code", str(tmp_path / "cc"))
    _forget_and_check(mem, store_path, 'echo "the merger with Initech closes on May 3"', ["Initech"])
    _forget_and_check(mem, store_path, body, ["Osprey"])
    shown = mem("show", sid).stdout
    assert shown.count("(forgotten at") == 2 and "noted" in shown and "note it down" in shown, shown
    # the agent runs it again later in the session: the capture filter (the forget's match: rule) stores it redacted
    with open(t, "ab") as fh:
        fh.write(line(asst("a4", "m4", [tool_use("toolu_4", "Bash", command=cmd)], sid, ts="2026-01-05T10:05:00Z")))
    mem("import", "claude-code", str(tmp_path / "cc"))
    assert "[forgotten] >> notes.txt" in mem("show", sid).stdout
    mem("gc", "--prune=now")
    assert files_holding(store_path, "Initech") == []


def test_forget_match_finds_a_backslash_in_a_codex_function_call(tmp_path, mem, store_path):
    folder = tmp_path / "codex"
    folder.mkdir()
    codex_rollout(folder, "0199aaaa-0000-7000-8000-00000000f292",
                  [("shell", {"command": ["bash", "-lc", "echo marmot-\\zinc-88 > key.txt"]}, "")])
    mem("import", "codex", str(folder))
    _forget_and_check(mem, store_path, "marmot-\\zinc-88", ["marmot"])
