"""test34b T23: with a sealed key, a ``seal-rules`` file cut short or
deleted was silent: the next turns stored the sealed value in the clear,
``mem fsck`` said "ok" and ``mem doctor`` said nothing.  Now fsck and doctor
name it (a warning) with the way to rebuild it, ``mem sealed
rebuild-rules``, the hooks log ``DamagedSealRules`` (they fail open), and
the rebuild makes later turns withheld again."""

from __future__ import annotations

import json

import pytest

from objstore import scan_store
from objstore.memory.sealrules import RULES_FILE
from tests.hooks._util import hook_env, hook_log, wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem

VALUE = "orchid-lantern-5523"


def _sealed(tmp_path):
    """A session's "remember that" fact, sealed: ``(session, env, passphrase file)``."""
    s = _Session(tmp_path)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    s.prompt(f"remember that the locker combination is {VALUE}")
    s.stop("Noted.")
    wait_store_processes_gone(s.store)
    (key,) = s.remembered()
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    _mem(env, "vault", "init", "--passphrase-file", str(pp))
    _mem(env, "seal", key)
    return s, env, pp


@pytest.mark.parametrize("damage", ["cut", "deleted"])
def test_a_damaged_seal_rules_file_is_named_and_rebuilt(tmp_path, damage):
    s, env, pp = _sealed(tmp_path)
    rules = s.store / RULES_FILE
    whole = rules.read_bytes()
    assert "seal-rules" not in _mem(env, "fsck").stdout
    if damage == "cut":
        rules.write_bytes(whole[:len(whole) - 20])
    else:
        rules.unlink()
    out = _mem(env, "fsck", ok=(13,)).stdout   # cut (test42 T25) or deleted (test43 T11) with a seal: writes stop
    assert "error: seal-rules is " in out, out
    assert "mem sealed rebuild-rules" in out, out
    doc = json.loads(_mem(env, "doctor", "--json", ok=(0, 1)).stdout)
    assert any(f["check"] == "seal" and "mem sealed rebuild-rules" in f["fix"] for f in doc["findings"]), doc
    s.prompt("open the locker notes again")   # fails open: the prompt goes on, one line in the hook log
    assert "DamagedSealRules" in hook_log(s.store)
    out = _mem(env, "sealed", "rebuild-rules", "--passphrase-file", str(pp), "--json").stdout
    assert json.loads(out) == {"sealed_keys": 1, "rules_added": json.loads(out)["rules_added"], "forgotten_unruled": []}
    assert json.loads(out)["rules_added"] >= 1
    assert "seal-rules" not in _mem(env, "fsck").stdout
    s.stop(f"The combination is {VALUE}.")
    wait_store_processes_gone(s.store)
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [VALUE.encode()]) == []


def test_a_bad_line_goes_with_the_rebuild_and_a_forget_only_file_is_named(tmp_path):
    """test35b T3: the rebuild only added rules, so a damaged line stayed and
    the warning naming the rebuild never cleared.  T2: a file holding only
    the rules of forgotten values (``mem forget KEY``, no sealed key) cut
    short was named by no one."""
    s, env, pp = _sealed(tmp_path)
    rules = s.store / RULES_FILE
    head, *rest = rules.read_text().splitlines(keepends=True)
    rules.write_text(head + "garbage line here\n" + "".join(rest))
    assert "error: seal-rules is damaged" in _mem(env, "fsck", ok=(13,)).stdout   # a seal: refused (test42 T25)
    _mem(env, "sealed", "rebuild-rules", "--passphrase-file", str(pp))
    assert "garbage" not in rules.read_text() and "seal-rules" not in _mem(env, "fsck").stdout
    other = tmp_path / "other"
    f = _Session(other)
    fenv = {k: v for k, v in hook_env(f.store).items() if k != "MEM_AGENT"}
    f.prompt("remember that the db host is pgmain-host-77.internal")
    f.stop("Noted.")
    wait_store_processes_gone(f.store)
    (fkey,) = f.remembered()
    _mem(fenv, "forget", fkey, "--yes")
    frules = f.store / RULES_FILE
    assert frules.exists()
    frules.write_bytes(frules.read_bytes()[:120])
    out = _mem(fenv, "fsck").stdout
    assert "warning: seal-rules is damaged" in out and "forgotten" in out, out
