"""Tester test18b V10: Claude Code's ``!`` bash mode writes the command a user
ran as a prompt ``<bash-input>CMD</bash-input>`` and what it printed as the
next prompt ``<bash-stdout>OUT</bash-stdout><bash-stderr>ERR</bash-stderr>``.
Glued to the closing tag, the command's last word (``secret</bash-input>``,
``-</bash-input>``) hid it from the ``mem-command`` rule, so a secret given to
``mem remember`` / ``mem sealed import`` was stored verbatim, and the value
``mem sealed show`` printed came back in the ``<bash-stdout>``.  Now the
command is redacted as a Bash call's command is, and the output of a command
that prints a secret (``transcript.prints_secret``) is
``[REDACTED:sealed-value]``: ``mem import claude-code`` and the Stop hook
(also when the output comes in a later sync).  Real transcript files, real
``mem`` processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from objstore.capture.withhold import SECRET_OUTPUT, bash_mode
from tests.hooks._util import (REPO, asst, hook_env, line, payload, run_hook_done, text, turns, user,
                               wait_store_processes_gone)

SID = "38383838-2222-3333-4444-555555555555"
SECRET = "Quartz-Lantern-7731"                       # the value given to mem remember --sensitivity secret
PIPED = "Marble-Heron-5520"                          # a value piped into mem sealed import
PASS = "Velvet-Otter-Harbor-42"                      # a passphrase piped into mem sealed show
VALUE = "4471-9902"                                  # the decrypted sealed PIN it printed
SHOW = f"printf '{PASS}' | mem sealed show user/bank/pin --passphrase-file -"


def _mem(*args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, cwd=REPO,
                       timeout=120)
    assert p.returncode == 0, (p.stdout, p.stderr)
    return p


def _texts(store: Path) -> list[tuple[str, str]]:
    return [(r, x) for _s, _q, r, x, _src in sorted(turns(store), key=lambda t: t[1])]


def _none_stored(store: Path) -> None:
    """No turn and no search result holds any of the secrets."""
    got = "\n".join(x for _r, x in _texts(store))
    for v in (SECRET, PIPED, PASS, VALUE):
        assert v not in got, v
        out = _mem("--home", str(store), "search", v, "--json").stdout
        assert v not in out and json.loads(out) == [], v


def _records() -> list[bytes]:
    return [
        line(user("u1", f"<bash-input>mem remember user/notes/launch {SECRET} --sensitivity secret</bash-input>", SID)),
        line(user("u2", "<bash-stdout>remembered user/notes/launch</bash-stdout><bash-stderr></bash-stderr>", SID)),
        line(user("u3", f"<bash-input>printf {PIPED} | mem sealed import user/bank/pin -</bash-input>", SID)),
        line(user("u4", "<bash-stdout>sealed user/bank/pin</bash-stdout><bash-stderr></bash-stderr>", SID)),
        line(user("u5", f"<bash-input>{SHOW}</bash-input>", SID)),
        line(user("u6", f"<bash-stdout>{VALUE}</bash-stdout><bash-stderr></bash-stderr>", SID)),
        line(user("u7", "<bash-input>ls /tmp</bash-input>", SID)),
        line(user("u8", "<bash-stdout>notes.txt</bash-stdout><bash-stderr></bash-stderr>", SID)),
        line(asst("a1", "msg_1", [text("Noted.")], SID)),
    ]


def test_bash_mode_forms():
    assert bash_mode("plain prompt", True) == ("plain prompt", True)
    assert bash_mode("<bash-input>mem sealed show k</bash-input>", False) == (
        "<bash-input>\nmem sealed show k\n</bash-input>", True)
    assert bash_mode("<bash-stdout>x</bash-stdout><bash-stderr></bash-stderr>", True) == (
        f"<bash-stdout>{SECRET_OUTPUT}</bash-stdout><bash-stderr></bash-stderr>", False)
    assert bash_mode("<bash-stdout>x</bash-stdout>", False) == ("<bash-stdout>x</bash-stdout>", False)
    # a command and its output in one prompt; a later harmless command clears the flag
    assert bash_mode("<bash-input>mem sealed show k</bash-input><bash-stdout>x</bash-stdout>", False) == (
        f"<bash-input>\nmem sealed show k\n</bash-input><bash-stdout>{SECRET_OUTPUT}</bash-stdout>", False)
    assert bash_mode("<bash-input>ls</bash-input>", True) == ("<bash-input>\nls\n</bash-input>", False)


def test_import_claude_code_redacts_bash_mode(tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(_records()))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(t))
    got = _texts(store)
    assert len(got) == 9
    assert "mem remember user/notes/launch [REDACTED:" in got[0][1] and "--sensitivity secret" in got[0][1]
    assert "[REDACTED:" in got[2][1] and "mem sealed import user/bank/pin -" in got[2][1]
    assert "[REDACTED:" in got[4][1] and "mem sealed show user/bank/pin" in got[4][1]
    assert got[5] == ("user", f"<bash-stdout>{SECRET_OUTPUT}</bash-stdout><bash-stderr></bash-stderr>")
    assert got[7] == ("user", "<bash-stdout>notes.txt</bash-stdout><bash-stderr></bash-stderr>")  # kept
    assert "remembered user/notes/launch" in got[1][1]
    _none_stored(store)


def test_stop_hook_withholds_the_output_read_in_a_later_sync(tmp_path):
    """The command is read by one Stop hook, its output by the next (the
    flag is kept in the cursor's state)."""
    recs = _records()
    store = tmp_path / "store"
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(recs[:5] + [line(asst("a0", "msg_0", [text("Ran it.")], SID))]))
    env = hook_env(store)
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    assert [r for r, _x in _texts(store)] == ["user"] * 5    # the last answer may grow: read next time
    with open(t, "ab") as f:
        f.write(b"".join(recs[5:]))
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    got = _texts(store)
    assert ("user", f"<bash-stdout>{SECRET_OUTPUT}</bash-stdout><bash-stderr></bash-stderr>") in got
    assert ("user", "<bash-stdout>notes.txt</bash-stdout><bash-stderr></bash-stderr>") in got
    _none_stored(store)


def test_proxy_redacts_bash_mode(tmp_path):
    """The proxy sees the same prompts in the request after them; the output
    may come in a later request than its command."""
    from objstore.integrations.proxy import capture_turns, prepare
    from objstore.memory.opening import open_store
    msgs = [{"role": "user", "content": json.loads(r)["message"]["content"]} for r in _records()[:5]]
    later = [{"role": "assistant", "content": "Ran it."},
             {"role": "user", "content": [{"type": "text", "text": f"<bash-stdout>{VALUE}</bash-stdout>"},
                                          {"type": "text", "text": "what next?"}]}]
    store = tmp_path / "store"
    with open_store(store, create=True) as s:
        for req in (msgs, msgs + later):
            body = {"model": "claude", "max_tokens": 10, "messages": req}
            prep = prepare(s, json.dumps(body).encode(), {"x-mem-session": "px-bash"})
            capture_turns(s, prep.pending)
    got = _texts(store)
    assert ("user", f"<bash-stdout>{SECRET_OUTPUT}</bash-stdout>") in got and ("user", "what next?") in got
    _none_stored(store)
