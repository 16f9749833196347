"""fgt21 (tester finding W5): ``mem forget --help`` promised "a forgotten
value is not captured again", but a new session holding a ``--match`` text
is captured with it and an agent's write with the text's separators changed
is accepted.  The help and docs/forget.md now say exactly what is
guaranteed (since txt42: a new session is captured with the text
withheld); this test runs the tester's reproduction with real ``mem``
processes and checks that the help says what they do (it failed on the
code before: the help made the unqualified promise)."""

from __future__ import annotations

import json

TEXT = "wombat-saffron-7731"


def _session(root, sid, day):
    rec = {"type": "user", "uuid": sid[:8] + "-u", "parentUuid": None, "sessionId": sid, "cwd": "/p",
           "timestamp": f"2026-12-0{day}T10:00:00Z",
           "message": {"role": "user", "content": f"the launch codename is {TEXT}"}}
    (root / "-p").mkdir(parents=True, exist_ok=True)
    (root / "-p" / f"{sid}.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")


def test_forget_help_says_what_match_guarantees(mem, tmp_path):
    corpus = tmp_path / "cc"
    _session(corpus, "aaaaaaaa-0000-4000-8000-000000000001", 1)
    mem("import", "claude-code", str(corpus))
    mem("forget", "--match", TEXT, "--yes", env={"MEM_AGENT": "0"})
    mem("gc", "--prune=now")
    assert "wombat" not in mem("search", "wombat", exit_code=None).stdout
    # the same session imported again: held
    mem("import", "claude-code", str(corpus))
    assert "wombat" not in mem("search", "wombat", exit_code=None).stdout
    # a new session holding the text: captured with it withheld, stored and indexed so (txt42; before,
    # stored with it and only served without it: srv21, tests/cmds/test_srv21_match_not_served.py)
    _session(corpus, "bbbbbbbb-0000-4000-8000-000000000002", 2)
    mem("import", "claude-code", str(corpus))
    assert "wombat" not in mem("search", "wombat", exit_code=None).stdout
    found = mem("search", "launch codename", "--json").json
    assert [r["snippet"] for r in found] == ["the launch codename is [forgotten]"]
    assert "wombat" not in mem("cat-object", found[0]["id"]).stdout
    # an agent's write: the exact text is refused, and since han40 (test39b B11) the text with blanks for hyphens
    mem("remember", "project/p/name", TEXT, env={"MEM_AGENT": "claude"}, exit_code=6)
    mem("remember", "project/p/name", TEXT.replace("-", " "), env={"MEM_AGENT": "claude"}, exit_code=6)
    helptext = " ".join(mem("forget", "--help").stdout.split())
    assert "A forgotten value is not captured again" not in helptext
    assert "A session the forget did not touch (a new one) that holds a --match text is captured with it " \
        "withheld: stored, indexed and shown as [forgotten]" in helptext
    assert "separators changed" in helptext
