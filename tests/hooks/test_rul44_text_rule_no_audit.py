"""test43 T14: with ``tombstone-digests`` lost, deleting or emptying
``logs/audit`` turned the fail-closed guard of a lost ``forget --match``
text rule off (the guard told the store's own rules by their audit
``tombstone`` lines): an agent's write and the prompt hook (its rules
cache gone) stored the forgotten text, fsck said ok, doctor nothing.  Now
a text rule made since the store's hash key counts as this store's
unless an audit line says a pull, clone, restore or import brought it:
the log lost, it fails closed.  Real ``mem`` processes and hook events."""

from __future__ import annotations

import shutil
import time

import pytest

from tests.hooks._util import hook_env, run_hook, turns

TEXT = "Zephyrine Quillborough"


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_lost_text_rule_fails_closed_without_the_audit_log(mem, store_path, tmp_path, how):
    env = {"MEM_HOME": str(store_path)}
    mem("init", env=env)
    mem("forget", "--match", TEXT, "--yes", env=env)
    (store_path / "tombstone-digests").unlink()
    log = store_path / "logs" / "audit"
    log.unlink() if how == "deleted" else log.write_bytes(b"")
    shutil.rmtree(store_path / "cache", ignore_errors=True)   # (a cache: the served rules go with it)
    r = mem("remember", "project/t/z", f"{TEXT} leads billing", env={**env, "MEM_AGENT": "claude"}, exit_code=13)
    assert "tombstone-digests" in r.stderr, r.stderr
    rc, _o, _e, _s = run_hook(store_path, {"hook_event_name": "UserPromptSubmit", "session_id": "s-t14",
                                           "cwd": str(tmp_path), "prompt": f"ping {TEXT} about receipts"},
                              env=hook_env(store_path))
    assert rc == 0
    time.sleep(2)   # (what a background writer would have written by now)
    assert not any(TEXT.lower() in t[3].lower() for t in turns(store_path))
    f = mem("fsck", env=env, exit_code=13)
    assert "text rule" in f.stdout + f.stderr, f.stdout
    d = mem("doctor", env=env, exit_code=1)
    assert "error: [tombstones]" in d.stdout, d.stdout
    mem("forget", "--match", TEXT, "--yes", env=env)   # the forget run again ends it
    mem("fsck", env=env)
    mem("remember", "project/t/z", f"{TEXT} leads billing", env={**env, "MEM_AGENT": "claude"}, exit_code=6)
