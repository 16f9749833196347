"""A captured prompt's source id gives no PIN back (test34b T10): the id
was ``cc:p:<24 hex of SHA-256 of the prompt>:<n>``, computed before
redaction and kept after a seal or forget rewrote the text, exported and
pushed; ``prompt_hash(template % i)`` over 10,000 PINs found the prompt.
Now the stored id is keyed with the store's hash key
(``sessions.prompt_id``), and the hook's prompt and ``mem import`` of the
same transcript still meet (one turn), also for a prompt stored under its
plain id before the change."""

from __future__ import annotations

import json
import subprocess
import sys

from objstore.capture.promptscan import prompt_hash
from objstore.memory.appender import TurnAppender
from objstore.memory.opening import open_store
from objstore.memory.sessions import CapturedTurn
from tests.hooks._util import (CWD, REPO, asst, hook_env, line, payload, run_hook_done, text, turns, user,
                               wait_store_processes_gone)

SID = "0a1b2c3d-0000-4000-8000-0000000035aa"
TEMPLATE = "my alarm pin is %04d, please add it to the runbook"
PROMPT = TEMPLATE % 7391


def _mem(store, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True,
                          env=hook_env(store), cwd=REPO, timeout=300)


def _transcript(tmp_path):
    proj = tmp_path / "projects" / "-home-u-proj"
    proj.mkdir(parents=True)
    t = proj / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", PROMPT, SID)) + line(asst("a1", "m1", [text("Added to the runbook.")], SID)))
    return proj, t


def _user_turns(store) -> list:
    return [x for x in turns(store) if x[0] == SID and x[2] == "user"]


def _guessed(blob: str) -> list[str]:
    """The PINs whose prompt id (as before session 35) ``blob`` holds."""
    return [TEMPLATE % i for i in range(10000) if prompt_hash(TEMPLATE % i) in blob]


def test_hook_then_import_one_turn_and_no_pin_from_the_export(tmp_path):
    store = tmp_path / "store"
    proj, t = _transcript(tmp_path)
    env = hook_env(store, MEM_HOOK_FORK="0")
    assert run_hook_done(store, payload("UserPromptSubmit", SID, t, prompt=PROMPT), env=env)[0] == 0
    assert run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False), env=env)[0] == 0
    wait_store_processes_gone(store)
    first = _user_turns(store)
    assert len(first) == 1
    r = _mem(store, "import", "claude-code", str(proj.parent), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["turns_added"] <= 1     # the answer, which a Stop may leave to a later sync
    assert _user_turns(store) == first              # the hook's prompt, met by the import: no second one
    src = first[0][4]
    assert src.startswith("cc:p:") and prompt_hash(PROMPT) not in src
    assert (store / "hash-key").stat().st_mode & 0o777 == 0o600
    out = tmp_path / "e.jsonl"
    assert _mem(store, "export", "-o", str(out)).returncode == 0
    blob = out.read_text()
    assert src in blob                               # the id travels ...
    assert _guessed(blob) == []                      # ... and gives no PIN back


def test_import_alone_keys_the_id_and_a_second_import_adds_nothing(tmp_path):
    store = tmp_path / "store"
    proj, _t = _transcript(tmp_path)
    for added in (2, 0):
        r = _mem(store, "import", "claude-code", str(proj.parent), "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["turns_added"] == added
    (u,) = _user_turns(store)
    assert _guessed(u[4]) == []


def test_a_prompt_stored_under_its_plain_id_before_is_still_met(tmp_path):
    """A store written before session 35 holds the plain id: the hook and
    an import go on meeting it there (no second turn)."""
    store = tmp_path / "store"
    proj, t = _transcript(tmp_path)
    plain = f"cc:p:{prompt_hash(PROMPT)}:1"
    with open_store(store, create=True) as s:
        w = TurnAppender(s, command="test")
        with s.lock("test"):
            assert w.add(CapturedTurn(SID, plain, "user", PROMPT, 1767607200000, CWD, "proj"))
            w.publish()
    env = hook_env(store, MEM_HOOK_FORK="0")
    assert run_hook_done(store, payload("UserPromptSubmit", SID, t, prompt=PROMPT), env=env)[0] == 0
    wait_store_processes_gone(store)
    r = _mem(store, "import", "claude-code", str(proj.parent), "--json")
    assert r.returncode == 0, r.stderr
    assert [x[4] for x in _user_turns(store)] == [plain]
