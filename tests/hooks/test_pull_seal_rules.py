"""test34b T22: a session captured on a second machine (no seal rules
there: they are local) quoting a value sealed on the first was stored
there in the clear, and the sealing machine's ``mem pull`` took it in,
indexed it and served it unmasked.  A pull now applies the local seal rules
to the turns it takes in (``sealrules.withhold_in_chain``, the turn
writer's ``withhold_sealed_values``), as capture here would; a value
``mem forget KEY`` withheld likewise (test34b T17's rules), and the
sealing machine's next push takes the clear copies off the remote."""

from __future__ import annotations


from objstore import scan_store
from tests.hooks._util import hook_env, wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem

SEALED = "orchid-lantern-5522"
FORGOT = "bluebird-falcon-7r"


def test_a_pull_withholds_a_value_sealed_or_forgotten_here_in_the_turns_it_takes_in(tmp_path):
    a = _Session(tmp_path / "a")
    env_a = {k: v for k, v in hook_env(a.store).items() if k != "MEM_AGENT"}
    a.prompt(f"remember that the locker combination is {SEALED}")
    a.prompt(f"remember that the launch codename is {FORGOT}")
    a.stop("Noted both.")
    wait_store_processes_gone(a.store)
    keys = sorted(a.remembered())
    (seal_key,) = [k for k in keys if "locker" in k]
    (forget_key,) = [k for k in keys if "launch" in k]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    _mem(env_a, "vault", "init", "--passphrase-file", str(pp))
    _mem(env_a, "seal", seal_key)
    _mem(env_a, "forget", forget_key, "--yes")
    remote = tmp_path / "remote"
    remote.mkdir()
    _mem(env_a, "remote", "add", "plain", str(remote), "--no-encrypt")
    _mem(env_a, "push", "plain")
    # machine B: a clone (no seal rules: they never travel), a session quoting both values, a push
    (tmp_path / "b").mkdir()
    env_b = {k: v for k, v in hook_env(tmp_path / "b" / "store").items() if k != "MEM_AGENT"}
    _mem(env_b, "clone", str(remote))
    b = _Session(tmp_path / "b", sid="dddddddd-0000-4000-8000-000000000022")
    b.prompt(f"the banner should show {SEALED} and {FORGOT} in the footer")
    b.stop(f"I added {SEALED} and {FORGOT} to the footer.")
    wait_store_processes_gone(b.store)
    _mem(env_b, "push", "origin")
    # A pulls: the turns arrive with both values withheld, stored, indexed and served so
    _mem(env_a, "pull", "plain")
    _mem(env_a, "gc", "--prune=now")
    assert scan_store(a.store, [SEALED.encode(), FORGOT.encode()]) == []
    shown = _mem(env_a, "show", b.sid[:8]).stdout
    assert "I added [REDACTED:sealed-value] and [REDACTED:forgotten-value] to the footer." in shown, shown
    assert SEALED not in _mem(env_a, "search", "footer banner", "--json", ok=(0, 1)).stdout
    # a second pull of the same remote changes nothing; A's push takes the clear copies off the remote
    assert "1 ref updated" not in _mem(env_a, "pull", "plain").stdout
    _mem(env_a, "push", "plain")
    assert scan_store(remote, [SEALED.encode(), FORGOT.encode()]) == []
    assert _mem(env_a, "fsck").returncode == 0
