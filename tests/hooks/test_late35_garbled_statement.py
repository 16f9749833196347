"""test35 T14: a "remember that …" prompt whose event held bytes that are
not UTF-8 (read as U+FFFD) is not written as the person's fact -- ``mem
remember`` refuses such a value with exit 2 -- the hook says so and exits 0,
and the prompt's turn is kept as it came.  Real ``mem hook`` processes."""

from __future__ import annotations

import json

from tests.hooks._util import CWD, run_hook, turns, wait_store_processes_gone

SID = "ffffffff-0000-0000-0000-000000000002"


def _event(prompt: bytes) -> bytes:
    return (b'{"session_id":"' + SID.encode() + b'","hook_event_name":"UserPromptSubmit","prompt":"' + prompt
            + b'","cwd":"' + CWD.encode() + b'"}')


def test_a_statement_with_bytes_not_utf8_is_not_stored_as_a_fact(mem, store_path):
    rc, out, _err, _s = run_hook(store_path, _event(b"remember that the build flag is \xff\xfe quick"))
    assert rc == 0
    said = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Not stored, though asked" in said and "U+FFFD" in said and "Remembered" not in said
    wait_store_processes_gone(store_path)
    assert mem("keys", "--json").stdout.count("build-flag") == 0
    mem("get", "project/proj/remembered/build-flag", exit_code=4)
    assert [t[3] for t in turns(store_path)] == ["remember that the build flag is \ufffd\ufffd quick"]
    # the same statement in valid UTF-8 is stored, as before
    rc, out, _err, _s = run_hook(store_path, _event(b"remember that the build flag is --quick-mode"))
    assert rc == 0 and "Remembered as you asked" in out
    wait_store_processes_gone(store_path)
    assert "--quick-mode" in mem("get", "project/proj/remembered/build-flag").stdout
