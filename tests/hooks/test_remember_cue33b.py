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
