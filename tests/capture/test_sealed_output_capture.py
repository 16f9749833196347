"""Tester U9 part 2: an agent reading a sealed value for the user
(``printf PASS | mem sealed show KEY --passphrase-file -``, docs/vault.md's
form without a terminal) got the decrypted value back into the store as the
Bash call's result: a plain, searchable, pushable turn.  The result of a call
that prints a sealed value or a secret key (``transcript.prints_secret``) is
now stored as ``[REDACTED:sealed-value]`` in its place, on every capture path
that pairs a call with its result: ``mem import claude-code``, the Claude
Code hooks (also when the result comes in a later sync than the call),
``mem import codex`` and the proxy.  Shell capture records no output at all.
Real transcript files, real ``mem`` processes."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from objstore.capture.withhold import SECRET_OUTPUT, prints_secret
from tests.hooks._util import (CWD, REPO, asst, hook_env, line, payload, proxy_replay, run_hook_done, text, tool_result,
                               tool_use, turns, user, wait_store_processes_gone)

SID = "37373737-2222-3333-4444-555555555555"
VALUE = "4471-9902"                                   # the decrypted sealed PIN the tool printed
SHOW = "printf 'Velvet-Otter-Harbor-42' | mem sealed show user/bank/pin --passphrase-file -"


def _mem(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, cwd=REPO,
                       env=env, timeout=120)
    assert p.returncode == 0, (p.stdout, p.stderr)
    return p


def _texts(store: Path) -> list[tuple[str, str]]:
    return [(r, x) for _s, _q, r, x, _src in sorted(turns(store), key=lambda t: t[1])]


def _not_found(store: Path) -> None:
    """Neither a turn nor the search index holds VALUE."""
    assert not any(VALUE in x for _r, x in _texts(store))
    out = _mem("--home", str(store), "search", VALUE, "--json").stdout
    assert VALUE not in out and json.loads(out) == []


def _transcript(path: Path) -> Path:
    path.write_bytes(b"".join([
        line(user("u1", "show me my sealed bank pin", SID)),
        line(asst("a1", "msg_1", [tool_use("toolu_show", command=SHOW, description="run")], SID)),
        line(user("u2", [tool_result("toolu_show", VALUE + "\n")], SID)),
        line(asst("a2", "msg_2", [tool_use("toolu_ls", command="ls /tmp")], SID)),
        line(user("u3", [tool_result("toolu_ls", "notes.txt")], SID)),
        line(asst("a3", "msg_3", [text("Your PIN is shown above.")], SID)),
    ]))
    return path


@pytest.mark.parametrize("cmd", [
    SHOW, "/home/u/.venv/bin/mem --home /tmp/s sealed show user/bank/pin --raw --passphrase-file pp",
    "mem sealed show user/bank/pin --all", "mem sealed export user/bank/pin -o -",
    "mem sealed export user/bank/pin | age -d -i ~/.mem/vault/identity.age", "age --decrypt -i key.txt pin.age",
    "mem remote key export -o -", "python -m cmds sealed show user/bank/pin",
])
def test_the_commands_that_print_secret_material(cmd):
    for form in (cmd, json.dumps({"command": cmd}), json.dumps({"cmd": cmd}),
                 json.dumps({"command": ["bash", "-lc", cmd]}), json.dumps({"command": cmd.split()})):
        assert prints_secret(form), form


@pytest.mark.parametrize("cmd", ["mem sealed list", "mem sealed import user/bank/pin pin.age", "mem get user/bank/pin",
                                 "mem remote add origin file:///x", "age -r age1xyz -o pin.age pin.txt",
                                 "usage -d", "mymem sealed show k", "mem vault recipient"])
def test_commands_that_print_none(cmd):
    assert not prints_secret(cmd) and not prints_secret(json.dumps({"command": cmd}))


def test_import_claude_code_withholds_the_sealed_value(tmp_path):
    t = _transcript(tmp_path / f"{SID}.jsonl")
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(t))
    got = _texts(store)
    assert [r for r, _x in got] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert got[2] == ("tool", SECRET_OUTPUT)                    # the turn keeps its place
    assert got[4] == ("tool", "notes.txt")                      # another call's result is kept
    assert "mem sealed show user/bank/pin" in got[1][1]
    _not_found(store)


def test_hooks_withhold_it_when_the_result_comes_in_a_later_sync(tmp_path):
    """Two calls in one message: the run ends at the first result, a Stop
    hook reads up to there; the sealed value's result comes after, read by
    the next hook process (the call ids are kept in the cursor's state)."""
    store = tmp_path / "store"
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join([
        line(user("u1", "show me my sealed bank pin", SID)),
        line(asst("a1", "msg_1", [tool_use("toolu_show", command=SHOW)], SID)),
        line(asst("a1b", "msg_1", [tool_use("toolu_ls", command="ls /tmp")], SID)),
        line(user("u2", [tool_result("toolu_ls", "notes.txt")], SID)),
    ]))
    env = hook_env(store)
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    assert [r for r, _x in _texts(store)] == ["user", "assistant", "tool"]
    with open(t, "ab") as f:
        f.write(line(user("u3", [tool_result("toolu_show", VALUE)], SID)))
        f.write(line(asst("a2", "msg_2", [text("Done.")], SID)))
    rc, _out, err, _dt = run_hook_done(store, payload("SessionEnd", SID, t, reason="exit"), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    got = _texts(store)
    assert ("tool", SECRET_OUTPUT) in got and ("assistant", "Done.") in got
    _not_found(store)


def _codex_rollout(path: Path) -> Path:
    def env(kind, p):
        return {"timestamp": "2026-03-02T10:00:00Z", "type": kind, "payload": p}
    recs = [env("session_meta", {"id": "T-sealed", "cwd": CWD, "source": "cli"}),
            env("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": "show my bank pin"}]}),
            env("response_item", {"type": "function_call", "name": "exec_command", "call_id": "c1",
                                  "arguments": json.dumps({"cmd": SHOW})}),
            env("response_item", {"type": "function_call_output", "call_id": "c1",
                                  "output": json.dumps({"output": VALUE + "\n", "metadata": {"exit_code": 0}})}),
            env("response_item", {"type": "function_call", "name": "shell", "call_id": "c2",
                                  "arguments": json.dumps({"command": ["mem", "sealed", "export", "user/bank/pin"]})}),
            env("response_item", {"type": "function_call_output", "call_id": "c2", "output": "age-" + VALUE}),
            env("response_item", {"type": "function_call", "name": "exec_command", "call_id": "c3",
                                  "arguments": json.dumps({"cmd": "ls"})}),
            env("response_item", {"type": "function_call_output", "call_id": "c3", "output": "notes.txt"})]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_import_codex_withholds_the_sealed_value(tmp_path):
    t = _codex_rollout(tmp_path / "rollout-2026-03-02T10-00-00-T-sealed.jsonl")
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "codex", str(t))
    tools = [x for r, x in _texts(store) if r == "tool"]
    assert tools == [SECRET_OUTPUT, SECRET_OUTPUT, "notes.txt"]
    _not_found(store)


def test_proxy_withholds_the_sealed_value(tmp_path):
    body = {"model": "claude", "max_tokens": 10, "messages": [
        {"role": "user", "content": "show me my sealed bank pin"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_show", "name": "Bash",
                                           "input": {"command": SHOW}},
                                          {"type": "tool_use", "id": "toolu_ls", "name": "Bash",
                                           "input": {"command": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_show", "content": VALUE},
                                     {"type": "tool_result", "tool_use_id": "toolu_ls",
                                      "content": [{"type": "text", "text": "notes.txt"}]}]}]}
    store = tmp_path / "store"
    proxy_replay(store, body["messages"], "px-sealed", (1, 3))   # the prompt's request, then the one with the results
    got = _texts(store)
    assert ("tool", SECRET_OUTPUT) in got and ("tool", "notes.txt") in got
    _not_found(store)


MEM_BIN = Path(sys.executable).with_name("mem")


def test_shell_capture_stores_no_output_of_sealed_show(tmp_path):
    """``mem sealed show`` typed in an interactive bash under shell capture:
    the value is printed on the terminal, the store keeps the command line
    (status, duration) and nothing of what it printed."""
    import shutil
    from tests.hooks.test_hook_shell import _pty_session, interactive_shell
    bash = shutil.which("bash")
    if bash is None or not MEM_BIN.exists():
        pytest.skip("needs bash and the mem script next to this Python")
    store = tmp_path / "store"
    home = tmp_path / "shellhome"
    home.mkdir()
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    from objstore.memory.opening import open_store
    from objstore.vault.identity import init_vault
    with open_store(store, create=True) as s:
        init_vault(s, "correct horse battery staple", work_factor=10)
    env, argv = interactive_shell("bash", bash, home, store)
    age = subprocess.run([sys.executable, "-c", (
        "import sys; from objstore.memory.opening import open_store; from objstore.vault import age;"
        "s = open_store(sys.argv[1]); r = (s.root / 'vault' / 'recipient').read_text().strip();"
        "sys.stdout.buffer.write(age.encrypt(sys.argv[2].encode(), [r]))"), str(store), VALUE],
        capture_output=True, cwd=REPO, env={**env, "PYTHONPATH": str(REPO)})
    assert age.returncode == 0, age.stderr
    (tmp_path / "pin.age").write_bytes(age.stdout)
    _mem("--home", str(store), "sealed", "import", "user/bank/pin", str(tmp_path / "pin.age"), "--passphrase-file", str(pp))
    out = _pty_session(argv, env, [f"mem sealed show user/bank/pin --passphrase-file '{pp}'", "true"])
    assert VALUE in out                                   # it was shown
    end = time.monotonic() + 60
    while time.monotonic() < end and not any(x.startswith("$ true") for _r, x in _texts(store)):
        time.sleep(0.3)
    got = [x for _r, x in _texts(store)]
    assert any(x.startswith("$ mem sealed show user/bank/pin") for x in got), got
    _not_found(store)
