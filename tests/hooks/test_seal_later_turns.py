"""test34 T4: ``mem seal KEY`` of a "remember that" fact rewrote the turns
already captured, but the same session went on and its next Stop sync
stored the agent's reply quoting the sealed value in the clear; ``mem
scan`` found it after ``gc --prune=now`` and ``mem search`` served it (a new
session quoting it too).  The seal now writes local seal rules
(``objstore.memory.sealrules``: keyed HMACs, never pushed), by which the one
turn writer withholds the value in every turn captured later."""

from __future__ import annotations

import subprocess
import sys

from objstore import scan_store
from objstore.memory.sealrules import RULES_FILE
from tests.hooks._util import REPO, hook_env
from tests.hooks.test_remember_asked import _Session

VALUE = "orchid-lantern-5521"


def _mem(env, *args, ok=(0,)):
    r = subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO, capture_output=True, text=True,
                       timeout=180)
    assert r.returncode in ok, (args, r.stdout + r.stderr)
    return r


def test_turns_captured_after_a_seal_are_stored_with_the_value_withheld(tmp_path):
    s = _Session(tmp_path)
    s.prompt(f"remember that the locker combination is {VALUE}")
    s.stop(f"Noted: {VALUE}.")
    (key,) = s.remembered()
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    _mem(env, "vault", "init", "--passphrase-file", str(pp))
    _mem(env, "seal", key)
    rules = s.store / RULES_FILE
    s.prompt("open the locker notes again")
    s.stop(f"The combination is {VALUE}.")
    other = _Session(tmp_path / "b", sid="dddddddd-0000-4000-8000-000000000015")
    other.store = s.store
    other.prompt("what does the note say")
    other.stop(f"It says {VALUE}.")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [VALUE.encode()]) == []
    assert rules.stat().st_mode & 0o077 == 0
    assert VALUE not in _mem(env, "search", "orchid", "--json", ok=(0, 1)).stdout
    out = _mem(env, "show", s.sid[:8]).stdout
    assert "The combination is [REDACTED:sealed-value]." in out, out
    assert VALUE not in _mem(env, "recall", "locker combination", ok=(0, 1)).stdout
    # local only: a push to a folder remote carries no rule, nor its key
    remote = tmp_path / "remote"
    remote.mkdir()
    _mem(env, "remote", "add", "origin", str(remote), "--no-encrypt")
    _mem(env, "push", "origin")
    head, *lines = rules.read_text().splitlines()
    secrets = [bytes.fromhex(head.split()[-1]), *(bytes.fromhex(ln.split()[0]) for ln in lines)]
    assert lines and scan_store(remote, secrets) == []
    exported = _mem(env, "export").stdout
    assert exported and not any(x.hex() in exported for x in secrets)
    assert _mem(env, "fsck").returncode == 0
    # unseal: the value is plain again, its rules go
    _mem(env, "unseal", key, "--passphrase-file", str(pp))
    assert not rules.exists()
    s.prompt("and once more")
    s.stop(f"Still {VALUE}.")
    assert f"Still {VALUE}." in _mem(env, "show", s.sid[:8]).stdout


def test_a_secret_remembered_sealed_is_withheld_in_a_later_prompt(tmp_path):
    """test34 T4's last note: a ``--sensitivity secret`` value quoted in a
    later prompt was stored and served in the clear."""
    s = _Session(tmp_path)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    _mem(env, "vault", "init", "--passphrase-file", str(pp))
    _mem(env, "remember", "user/pin9", "Kp9vvLm44y-door", "--sensitivity", "secret")
    s.prompt("type Kp9vvLm44y-door into the door panel")
    s.stop("Typed Kp9vvLm44y-door.")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"Kp9vvLm44y-door", b"kp9vvlm44y-door"]) == []
    assert "Kp9vvLm44y" not in _mem(env, "search", "door", "--json", ok=(0, 1)).stdout
