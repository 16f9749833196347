"""Session 33 (lane cue33b): every "remember that" the person typed is filed,
once, by every path (test33).

T21: ``mem import claude-code`` / ``mem import codex`` stored the prompt's
turn but never its statement, and no later sync (Stop, SessionEnd,
catch-up) wrote it either, since only a turn the sync adds leads to a write.
Real ``mem import`` and ``mem hook`` processes, read back with ``mem keys``
and ``mem get``."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

from tests.hooks._util import REPO, asst, hook_env, line, payload, run_hook_done, text, user


def _mem(home, *args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], env=hook_env(home), cwd=cwd or REPO,
                          capture_output=True, text=True, timeout=300)


def _remembered(home) -> dict[str, list[str]]:
    """``remembered/`` key -> the bodies of its versions, oldest first (``mem keys``, ``mem log --json``)."""
    p = _mem(home, "keys")
    assert p.returncode == 0, p.stderr
    out = {}
    for key in p.stdout.split():
        if "/remembered/" in key:
            log = _mem(home, "log", key, "--json")
            assert log.returncode == 0, log.stderr
            out[key] = [v["body"] for v in reversed(json.loads(log.stdout))]
    return out


def _cc_session(tmp_path, words: str) -> tuple[str, object, object]:
    """A Claude Code session under ``tmp_path/cc``: the prompt ``words`` and an answer; (sid, path, cwd)."""
    sid = str(uuid.uuid4())
    cwd = tmp_path / "acme"
    cwd.mkdir(exist_ok=True)
    t = tmp_path / "cc" / "-tmp-acme" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True, exist_ok=True)
    t.write_bytes(line(user("u1", words, sid, cwd=str(cwd), ts="2026-01-05T10:00:00Z"))
                  + line(asst("a1", "m1", [text("ok")], sid, cwd=str(cwd), ts="2026-01-05T10:00:01Z")))
    return sid, t, cwd


def test_mem_import_claude_code_files_the_statement_once_and_no_sync_again(tmp_path):
    home = tmp_path / "store"
    sid, t, cwd = _cc_session(tmp_path, "remember that the cc region is eu-west-3")
    p = _mem(home, "import", "claude-code", str(tmp_path / "cc"))
    assert p.returncode == 0, p.stderr
    got = _remembered(home)
    assert [k.rsplit("/", 1)[1] for k in got] == ["cc-region"], got   # base: no key
    assert list(got.values()) == [["the cc region is eu-west-3"]]
    key = next(iter(got))
    g = _mem(home, "get", key)
    assert g.returncode == 0 and "the cc region is eu-west-3" in g.stdout, g
    # the hooks that read the same transcript afterwards, and the import again: the fact stays one version
    for event in ("Stop", "SessionEnd"):
        run_hook_done(home, payload(event, sid, t, cwd=str(cwd)))
    assert _mem(home, "hook", "catch-up").returncode == 0
    assert _mem(home, "import", "claude-code", "--reread", str(tmp_path / "cc")).returncode == 0
    assert _remembered(home) == got


def test_mem_import_codex_files_the_statement(tmp_path):
    home, folder, cwd = tmp_path / "store", tmp_path / "cx", tmp_path / "web"
    folder.mkdir()
    cwd.mkdir()

    def rec(kind: str, p: dict, ts: str = "2026-03-02T10:00:00Z") -> str:
        return json.dumps({"timestamp": ts, "type": kind, "payload": p}) + "\n"
    said = "remember that the codex deploy region is us-east-2"
    (folder / f"rollout-2026-03-02T10-00-00-{uuid.uuid4()}.jsonl").write_text(
        rec("session_meta", {"id": str(uuid.uuid4()), "cwd": str(cwd), "source": "cli"})
        + rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]})
        + rec("response_item", {"type": "message", "role": "assistant",
                                "content": [{"type": "output_text", "text": "noted"}]}, "2026-03-02T10:00:02Z"))
    p = _mem(home, "import", "codex", str(folder))
    assert p.returncode == 0, p.stderr
    got = _remembered(home)
    assert list(got.values()) == [["the codex deploy region is us-east-2"]], got   # base: nothing
    assert next(iter(got)).endswith("/remembered/codex-deploy-region")


# ---------------------------------------------------------------- T13, T12, T11: what the prompt hook files

from objstore.capture.statements import statement_of   # noqa: E402
from tests.hooks.test_remember_cue33 import _Hooked   # noqa: E402

SEVERAL = [  # (prompt, the statements it states, in order)
    ("remember that the api port is 8443\nremember that the db port is 5432",
     ["the api port is 8443", "the db port is 5432"]),
    ("remember that the cache ttl is 60s. Also remember that the queue is sqs.",
     ["the cache ttl is 60s", "the queue is sqs"]),
    ("remember that the web host is w-1 and remember that the web port is 81", ["the web host is w-1", "the web port is 81"]),
    # one statement: a take-back restating it, a correction on the next line, a pasted line, a blank line between
    ("remember that the x host is x-1. Scratch that. Remember that the x host is x-2.", ["the x host is x-2"]),
    ("remember that the db port is 5432.\nActually, 6543.", ["the db port is 6543"]),
    ("remember that the a host is a-1\n\nremember that the b host is b-1", ["the a host is a-1"]),
    ("remember that the a host is a-1\n> remember that the q host is q-1", ["the a host is a-1"]),
    ("Some context first.\nRemember that the region is eu-west-1.", []),   # a cue on a later line alone: a paste
]

RULES = [  # T12: an explicit cue and a rule worded with "don't" / "do not" is a rule to keep, as "never"
    ("remember: don't push to main", "don't push to main"),
    ("Remember: do not use tabs", "do not use tabs"),
    ("remember: never push to main", "never push to main"),
    ("don't forget: push the tag", None),                     # a to-do stays no fact
    ("remember: don't push to main, so run the tests first", None),
]

NOTES = [  # T11: "note that" / "keep in mind that" only with a bare statement
    ("Note that the build is broken right now. Fix it please.", None),
    ("note that this function is O(n^2), can you make it faster", None),
    ("Note that I'm using the staging db for this test", None),
    ("Keep in mind that the API is rate limited when you write the client", None),
    ("note that the api port is 8443", "the api port is 8443"),
    ("Please note that the staging db is pg-7.", "the staging db is pg-7"),
    ("keep in mind that the deploy day is Friday", "the deploy day is Friday"),
    ("note that the db port is 5432. Actually, 6543.", "the db port is 6543"),
    ("remember that the build is broken. Fix it please.", "the build is broken"),   # "remember that" as before
]


def test_the_shapes_are_read():
    from objstore.capture.statements import further_statements   # (new: base has none)
    for said, want in SEVERAL:
        got = [w for w in [statement_of(said)] if w] + further_statements(said)
        assert got == want, said
    for said, want in RULES + NOTES:
        assert statement_of(said) == want, said


def test_each_statement_of_a_prompt_is_filed_and_confirmed(tmp_path):
    """T13 through the prompt hook: both statements stored, the confirmation names each."""
    s = _Hooked(tmp_path)
    ctx = s.prompt(SEVERAL[0][0])
    assert "api-port = the api port is 8443" in ctx and "db-port = the db port is 5432" in ctx, ctx
    ctx = s.prompt(SEVERAL[1][0])
    assert "cache-ttl = the cache ttl is 60s" in ctx and "queue = the queue is sqs" in ctx, ctx
    assert s.log("api-port") == ["the api port is 8443"] and s.log("db-port") == ["the db port is 5432"]
    assert s.log("cache-ttl") == ["the cache ttl is 60s"] and s.log("queue") == ["the queue is sqs"]
    s.stop()   # the Stop hook's sync of the same prompts writes nothing again
    assert s.log("db-port") == ["the db port is 5432"] and s.log("queue") == ["the queue is sqs"]


def test_a_rule_is_filed_and_a_note_on_the_task_is_not(tmp_path):
    """T12, T11 through the prompt hook: "remember: don't …" stored and confirmed; a "note that" on the
    task at hand stores nothing, a bare one is stored."""
    s = _Hooked(tmp_path)
    for said, want in RULES[:3]:
        assert f"= {want}" in s.prompt(said), said
    for said, _none in NOTES[:4]:
        assert "Remembered" not in s.prompt(said), said
    assert "= the api port is 8443" in s.prompt(NOTES[4][0])
    bodies = sorted(b[0] for b in s.remembered().values())
    assert bodies == sorted(["don't push to main", "do not use tabs", "never push to main", "the api port is 8443"])


def test_mem_import_files_each_statement_of_a_prompt(tmp_path):
    """T13 by the import (the late rule, as the sync)."""
    home = tmp_path / "store"
    _cc_session(tmp_path, SEVERAL[0][0])
    assert _mem(home, "import", "claude-code", str(tmp_path / "cc")).returncode == 0
    assert sorted(b for v in _remembered(home).values() for b in v) == sorted(SEVERAL[0][1])


TAKEN_BACK = [  # T1: take-backs in common wordings (the statement's value was stored with the take-back in it)
    ("remember that the queue name is jobs-main -- actually make it jobs-primary", "queue-name",
     "the queue name is jobs-primary"),
    ("remember that the owner is alice, er, bob", "owner", "the owner is bob"),
    ("remember that the retries are 3 (no, 5)", "retries", "the retries are 5"),
    ("remember that the log level is debug; sorry, it should be info", "log-level", "the log level is info"),
]


def test_a_take_back_in_common_wordings_stores_the_new_value(tmp_path):
    """T1 through the prompt hook: the value after "-- actually make it", "er,", "(no, …)" is the stored one;
    a parenthesis that takes nothing back ("(no TLS)") stays part of the statement."""
    assert statement_of("remember that the db port is 5432 (no TLS)") == "the db port is 5432 (no TLS)"
    s = _Hooked(tmp_path)
    for said, name, want in TAKEN_BACK:
        assert f"{name} = {want}" in s.prompt(said), said
        assert s.log(name) == [want], said
