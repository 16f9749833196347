"""A ``mem seal`` killed (SIGKILL) half-way (test24 T1): killed after its
sealed ref moved and before the plain copy was removed, the key was both
sealed and plain; ``mem get`` said "sealed" while keys, search, recall, the
agent's context, export and push served the plaintext, and fsck said ok.

Now the seal notes itself durably before its sealed ref moves, and the next
opening of the store (a reader's included) removes the plain copy; a store
an older ``mem`` left both ways is named by fsck and doctor, refused by
push and export, and finished by ``mem fsck --repair``.  Real ``mem``
processes on a real store; the seal is a real ``mem seal`` process that
SIGKILLs itself at the point named (a test-only wrapper: the product has no
kill hook)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
KEY = "project/k/locker"
VALUE = "locker combination plainval-%d-zzq"

#: ``mem seal ARGS`` that SIGKILLs itself when the seal starts removing the plain copy (its sealed ref has moved)
KILL_AT_FORGET = """
import os, signal
from objstore.memory import forget
forget.forget_key = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from cmds.entry import entry
entry()
"""
#: ``mem seal ARGS`` that SIGKILLs itself just before its sealed ref moves (its sealed versions are stored)
KILL_AT_SEALED_REF = """
import os, signal
from objstore.core.store import Store
moved = Store.update_ref
def update_ref(self, name, *a, **k):
    if name.startswith("sealed/"):
        os.kill(os.getpid(), signal.SIGKILL)
    return moved(self, name, *a, **k)
Store.update_ref = update_ref
from cmds.entry import entry
entry()
"""


def _setup(mem, tmp_path) -> Path:
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    for v in range(1, 4):
        mem("remember", KEY, VALUE % v)
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("remote", "add", "origin", str(remote), "--no-encrypt", env=PERSON)
    return remote


def _killed_seal(script: str) -> int:
    p = subprocess.run([sys.executable, "-c", script, "seal", KEY], cwd=REPO, env={**os.environ, **PERSON},
                       capture_output=True, timeout=120)
    return p.returncode


def _held(root: Path) -> list[str]:
    """The files under ``root`` that hold the plain value (any version)."""
    return [str(p) for p in root.rglob("*") if p.is_file() and b"plainval-" in p.read_bytes()]


def _notes(store_path: Path) -> list[str]:
    """The notes of stopped forgets and seals (``objstore.core.unfinished``)."""
    d = store_path / "forget-unfinished"
    return os.listdir(d) if d.is_dir() else []


def _refs(store_path: Path) -> tuple[bool, bool]:
    return ((store_path / "refs" / "facts" / KEY).exists(), (store_path / "refs" / "sealed" / KEY).exists())


def _readers_serve_no_plaintext(mem) -> None:
    assert "plainval" not in mem("keys").stdout
    assert "plainval" not in mem("context", "--project", "k").stdout
    assert "plainval" not in mem("search", "locker combination", exit_code=None).stdout
    assert "plainval" not in mem("recall", "locker combination", "--project", "k", exit_code=None).stdout
    assert "plainval" not in mem("export").stdout
    assert "sealed" in mem("get", KEY, exit_code=None).stderr


def test_a_seal_killed_after_its_sealed_ref_is_finished_by_the_next_reader(mem, store_path, tmp_path):
    remote = _setup(mem, tmp_path)
    assert _killed_seal(KILL_AT_FORGET) == -signal.SIGKILL
    assert _refs(store_path) == (True, True)            # killed at the dangerous point: both refs
    _readers_serve_no_plaintext(mem)                      # the first reader removed the plain copy
    assert _refs(store_path) == (False, True)
    assert not _notes(store_path)
    r = mem("fsck")
    assert "0 problems" in r.stdout and "warning" not in r.stdout, r.stdout
    pp = tmp_path / "pp"
    assert (VALUE % 3) in mem("sealed", "show", KEY, "--passphrase-file", str(pp)).stdout   # nothing lost
    mem("push", "origin", env=PERSON)
    assert _held(remote) == []
    mem("gc", "--prune=now")
    assert _held(store_path) == []


def test_a_key_left_both_ways_without_a_note_is_named_refused_and_repaired(mem, store_path, tmp_path):
    """A store an older ``mem`` left both sealed and plain has no note: fsck
    and doctor name it, push and export refuse, ``fsck --repair`` finishes it."""
    remote = _setup(mem, tmp_path)
    assert _killed_seal(KILL_AT_FORGET) == -signal.SIGKILL
    for n in _notes(store_path):                           # as an older mem left it: no note
        os.unlink(store_path / "forget-unfinished" / n)
    assert _refs(store_path) == (True, True)
    r = mem("fsck", exit_code=13)
    assert f"{KEY}: both sealed (refs/sealed) and plain (refs/facts)" in r.stdout, r.stdout
    r = mem("doctor", exit_code=None)
    assert f"{KEY} is both sealed and plain" in r.stdout + r.stderr and f"mem seal {KEY}" in r.stdout + r.stderr
    r = mem("export", exit_code=6)
    assert "plainval" not in r.stdout and "both sealed and plain" in r.stderr
    assert "both sealed and plain" in mem("push", "origin", env=PERSON, exit_code=6).stderr
    assert _held(remote) == []
    r = mem("fsck", "--repair")
    assert f"repair: {KEY}: the plain copy a stopped 'mem seal' left removed" in r.stdout, r.stdout
    assert _refs(store_path) == (False, True)
    _readers_serve_no_plaintext(mem)
    assert "0 problems" in mem("fsck").stdout
    mem("push", "origin", env=PERSON)
    assert _held(remote) == []


def test_a_seal_killed_before_its_sealed_ref_moved_is_named_until_run_again(mem, store_path, tmp_path):
    """Nothing a reader sees changed (the key is still plain), but the seal
    the person asked for is noted: fsck says to run it again, push refuses
    to send the plaintext meanwhile; the rerun seals it."""
    remote = _setup(mem, tmp_path)
    assert _killed_seal(KILL_AT_SEALED_REF) == -signal.SIGKILL
    assert _refs(store_path) == (True, False)
    assert (VALUE % 3) in mem("get", KEY).stdout          # still plain, nothing lost
    r = mem("fsck")
    assert f"mem seal {KEY}" in r.stdout, r.stdout
    assert f"mem seal {KEY}" in mem("push", "origin", env=PERSON, exit_code=6).stderr
    assert _held(remote) == []
    mem("seal", KEY, env=PERSON)
    assert _refs(store_path) == (False, True)
    _readers_serve_no_plaintext(mem)
    assert not _notes(store_path)
    mem("push", "origin", env=PERSON)
    assert _held(remote) == []


def test_the_opening_names_the_notes_folder_as_the_notes_module_does():
    from objstore.core.unfinished import DIRNAME
    from objstore.memory.opening import NOTES_DIR
    assert NOTES_DIR == DIRNAME


def test_a_key_left_both_ways_without_a_note_is_served_by_no_reader(mem, store_path, tmp_path):
    """mend25: before ``fsck --repair`` or a seal runs, no reader serves
    the plaintext of a key an older ``mem`` left both sealed and plain (no
    note): keys, search, recall, context, export, get, log, the agent's
    prompt hook; and the plain copy is still there for the repair."""
    _setup(mem, tmp_path)
    assert _killed_seal(KILL_AT_FORGET) == -signal.SIGKILL
    for n in _notes(store_path):                           # as an older mem left it: no note
        os.unlink(store_path / "forget-unfinished" / n)
    assert _refs(store_path) == (True, True)
    for args in (("keys",), ("keys", "--json"), ("context", "--project", "k"),
                 ("search", "locker combination"), ("search", "locker combination", "--json"),
                 ("recall", "locker combination", "--project", "k"), ("log", KEY), ("get", KEY),
                 ("get", KEY, "--json"), ("show", KEY), ("stats",)):
        r = mem(*args, exit_code=None)
        assert "plainval" not in r.stdout + r.stderr, (args, r.stdout, r.stderr)
    head = (store_path / "refs" / "facts" / KEY).read_text().strip()
    for args in (("show", head), ("show", head[:12], "--json")):   # a plain version named by its id
        r = mem(*args, exit_code=6)
        assert "plainval" not in r.stdout + r.stderr and f"mem sealed show {KEY}" in r.stderr, (args, r.stderr)
    assert _refs(store_path) == (True, True)               # nothing removed by a reader: fsck --repair's
    r = mem("fsck", "--repair")
    assert f"repair: {KEY}: the plain copy a stopped 'mem seal' left removed" in r.stdout, r.stdout


#: ``mem seal ARGS`` that SIGKILLs itself when the seal starts writing its withdrawal records (test26 V11)
KILL_AT_WITHDRAW = """
import os, signal
from objstore.vault import sealed
sealed.withdraw_plain = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from cmds.entry import entry
entry()
"""


def test_a_seal_killed_before_its_withdrawal_records_gets_them_from_the_finish(mem, store_path, tmp_path):
    """The finish of a stopped seal writes the withdrawal records the seal
    had not written (one per plain version, never a hash of a value), so
    the other machines still drop their plain copies."""
    from objstore.core.objects import value_digest
    from objstore.core.store import Store
    from objstore.memory.tombstones import SEAL_WITHDRAW, tombstones_for
    _setup(mem, tmp_path)
    assert _killed_seal(KILL_AT_WITHDRAW) == -signal.SIGKILL
    assert _refs(store_path) == (True, True)
    assert tombstones_for(Store(store_path), KEY) == []
    _readers_serve_no_plaintext(mem)                      # the first reader finished it
    assert _refs(store_path) == (False, True)
    left = tombstones_for(Store(store_path), KEY)
    assert [t.reason for t in left] == [SEAL_WITHDRAW] * 3
    assert not {t.value_sha256 for t in left} & {value_digest(VALUE % v) for v in range(1, 4)}
