"""test23 Z8: a hook's stdin is decoded by the import's rule
(``objstore.core.text``): an invalid UTF-8 byte or a lone surrogate escape
costs only that character (U+FFFD), never the prompt, and the hook and the
import store the same text."""

from __future__ import annotations

import subprocess
import sys

from tests.hooks._util import REPO, hook_env, run_hook, turns, wait_store_processes_gone

RAW = [b"bad \xff byte", b"lone \\ud83d here", b"nul \\u0000 escape"]


def test_the_hook_and_the_import_store_the_same_text(store_path, tmp_path):
    for i, raw in enumerate(RAW):
        sid = f"abab{i}111-2222-3333-4444-555555555555"
        event = (b'{"hook_event_name":"UserPromptSubmit","session_id":"' + sid.encode()
                 + b'","cwd":"/tmp","prompt":"' + raw + b'"}')
        rc, _out, err, _t = run_hook(store_path, event)
        assert rc == 0, err
        wait_store_processes_gone(store_path)   # the prompt's turn is written by the hook's capture child
        f = tmp_path / f"{sid.replace('abab', 'cdcd')}.jsonl"
        f.write_bytes(b'{"type":"user","uuid":"u1","sessionId":"' + sid.replace("abab", "cdcd").encode()
                      + b'","cwd":"/tmp","timestamp":"2026-01-05T10:00:00Z","message":{"role":"user","content":"'
                      + raw + b'"}}\n')
        p = subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", str(f)], capture_output=True,
                           env=hook_env(store_path), cwd=REPO, timeout=120)
        assert p.returncode == 0, p.stderr
    want = ["bad \ufffd byte", "lone \ufffd here", "nul \ufffd escape"]
    hook = sorted(t for s, _q, r, t, _src in turns(store_path) if s.startswith("abab") and r == "user")
    imported = sorted(t for s, _q, r, t, _src in turns(store_path) if s.startswith("cdcd") and r == "user")
    assert hook == imported == sorted(want)
