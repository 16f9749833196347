"""What is left of a stopped seal (tester findings test24b U1, U3, U6).

U1: a seal killed after its sealed ref moved is finished by the next store
opening, but only if that opening gets the store lock within 0.5 s, and a
server opened the store before the seal; meanwhile keys, search, recall and
the agent's context served the plaintext.  Now every reader of plain values
leaves out a key that has a sealed ref or a seal note
(``objstore.memory.served.sealed_plain``, checked at each read).
U3: an unseal killed after it wrote the plain versions was reported as a
stopped *seal*, and ``mem fsck --repair`` sealed the key again.  Now the
unseal notes itself; fsck, doctor and export name ``mem unseal KEY``, and
``--repair`` finishes the unseal.  U6: a seal's note is not worded as a
forget's ("tombstones", "no repair can finish it").

Real ``mem`` processes on a real store; the seal and unseal are real
processes that SIGKILL themselves at the point named (test-only wrappers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.vault.test_seal_killed import (KEY, KILL_AT_FORGET, KILL_AT_SEALED_REF, PERSON, VALUE, _held,
                                          _notes, _refs, _setup)

#: holds the store lock of the store at argv[1] until stdin closes, as any other ``mem`` writer would
HOLD_LOCK = """
import sys
from objstore.core.store import Store
st = Store.open(sys.argv[1])
with st.lock("test holds it"):
    print("held", flush=True)
    sys.stdin.read()
"""


def _run(script: str, *args: str) -> int:
    p = subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, env={**os.environ, **PERSON},
                       capture_output=True, timeout=120)
    return p.returncode


def _plain_readers(mem) -> str:
    """What keys, context, search and recall print (real processes)."""
    return "".join(r.stdout for r in (mem("keys"), mem("context", "--project", "k"),
                                      mem("search", "locker combination", exit_code=None),
                                      mem("recall", "locker combination", "--project", "k", exit_code=None)))


def test_readers_serve_no_plaintext_while_another_process_holds_the_lock(mem, store_path, tmp_path):
    _setup(mem, tmp_path)
    assert "plainval-3" in _plain_readers(mem)                  # the readers do serve a plain key
    assert _run(KILL_AT_FORGET, "seal", KEY) == -signal.SIGKILL
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(store_path)], cwd=REPO,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert "plainval" not in _plain_readers(mem)           # the finish could not get the lock ...
        assert _refs(store_path) == (True, True)                # ... so the plain copy is still there
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert "plainval" not in _plain_readers(mem)
    assert _refs(store_path) == (False, True)                   # the next opening with the lock finished it


def test_a_long_lived_store_serves_no_plaintext_of_a_seal_stopped_after_it_opened(mem, store_path, tmp_path):
    """As the MCP, serve and proxy servers hold it: opened before the seal."""
    from objstore import key_chains, recall, render_context, search
    from objstore.memory.opening import open_store
    _setup(mem, tmp_path)
    st = open_store(store_path)
    try:
        def served() -> str:
            return repr([list(key_chains(st)), render_context(st, ["k"]).text,
                         search(st, "locker combination"), recall(st, "locker combination", projects=["k"])])
        assert "plainval-3" in served()
        assert _run(KILL_AT_FORGET, "seal", KEY) == -signal.SIGKILL
        assert _refs(store_path) == (True, True)
        assert "plainval" not in served()
    finally:
        st.close()


#: ``mem unseal ARGS`` that SIGKILLs itself when it starts dropping the sealed copy (the plain one is written)
KILL_AT_SEALED_DROP = """
import os, signal
from objstore.vault import sealed
sealed._drop_sealed = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from cmds.entry import entry
entry()
"""


def test_an_unseal_killed_half_way_is_named_as_one_and_repair_finishes_it(mem, store_path, tmp_path):
    remote = _setup(mem, tmp_path)
    mem("seal", KEY, env=PERSON)
    pp = str(tmp_path / "pp")
    assert _run(KILL_AT_SEALED_DROP, "unseal", KEY, "--passphrase-file", pp) == -signal.SIGKILL
    assert _refs(store_path) == (True, True)
    assert "plainval" not in _plain_readers(mem)                # still sealed until the unseal finishes
    r = mem("fsck", exit_code=None)
    out = r.stdout + r.stderr
    assert f"'mem unseal {KEY}' was stopped before it removed the sealed copy" in out, out
    assert "mem seal" not in out and "tombstones" not in out, out
    r = mem("doctor", exit_code=None)
    assert f"mem unseal {KEY}" in r.stdout + r.stderr and "mem seal" not in r.stdout + r.stderr
    r = mem("export", exit_code=6)
    assert "plainval" not in r.stdout and f"mem unseal {KEY}" in r.stderr
    assert _held(remote) == []
    r = mem("fsck", "--repair")
    assert f"repair: {KEY}: the sealed copy a stopped 'mem unseal' left removed" in r.stdout, r.stdout
    assert "plain copy a stopped 'mem seal'" not in r.stdout
    assert _refs(store_path) == (True, False) and not _notes(store_path)
    assert (VALUE % 3) in mem("get", KEY).stdout                # plain, as the person asked
    assert "plainval-3" in _plain_readers(mem)
    r = mem("fsck")
    assert "0 problems" in r.stdout and "warning" not in r.stdout, r.stdout


def test_an_unseal_killed_before_it_wrote_is_left_for_the_unseal(mem, store_path, tmp_path):
    """Killed before any plain version was written: nothing is plain, so
    ``--repair`` cannot finish it; fsck says to run the unseal again."""
    _setup(mem, tmp_path)
    mem("seal", KEY, env=PERSON)
    kill_at_commit = KILL_AT_SEALED_DROP.replace("sealed._drop_sealed", "sealed.commit_version")
    assert _run(kill_at_commit, "unseal", KEY, "--passphrase-file", str(tmp_path / "pp")) == -signal.SIGKILL
    assert _refs(store_path) == (False, True)
    mem("fsck", "--repair")
    assert _refs(store_path) == (False, True) and _notes(store_path)
    assert f"run it again: mem unseal {KEY}" in mem("fsck").stdout
    mem("unseal", KEY, "--passphrase-file", str(tmp_path / "pp"), env=PERSON)
    assert _refs(store_path) == (True, False) and not _notes(store_path)
    assert (VALUE % 3) in mem("get", KEY).stdout


def test_a_seal_note_is_worded_for_a_seal(mem, store_path, tmp_path):
    _setup(mem, tmp_path)
    assert _run(KILL_AT_SEALED_REF, "seal", KEY) == -signal.SIGKILL
    r = mem("fsck")
    assert f"'mem seal {KEY}' was stopped before it removed the plain copy" in r.stdout, r.stdout
    assert "tombstones" not in r.stdout and "no write or repair" not in r.stdout
    r = mem("doctor", exit_code=None)
    assert "tombstones" not in r.stdout + r.stderr and f"mem seal {KEY}" in r.stdout + r.stderr
    assert "plainval" not in _plain_readers(mem)                # a seal asked for: readers leave the key out
