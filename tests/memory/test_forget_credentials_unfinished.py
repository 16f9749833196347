"""Session 22 (test22 X11): a ``mem forget --credentials`` killed half-way
left nothing saying it was unfinished, so ``mem export`` (exit 0) copied the
credentials it had not yet redacted, and push or backup would have sent
them.  It now leaves a note as every other forget does
(``objstore.core.unfinished``, kind ``credentials``): killed before all
its tombstones, push, backup and export refuse (exit 6) until the same
command run again finishes it; killed after them (the index journal names
its keys), export refuses until the next holder of the store lock finishes
it, and push takes that lock and sends only the redacted values.

A real ``mem forget --credentials --yes`` (the console entry, in a child
process) kills itself with SIGKILL at a fixed point; real ``mem``
processes check what it left."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from objstore import remember, scan_store
from objstore.memory.opening import open_store
from tests.conftest import REPO

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
TOKEN = b"Q9w2E3r4T5y6U7i8"
KEYS = [f"project/demo/summary/s{i}" for i in range(3)]

# ``mem forget --credentials --yes``, SIGKILLed by itself at its second tombstone
# ("tombstone"), or once a chain's ref has moved, after every tombstone and the journal's D lines ("rewrite")
_KILLED = textwrap.dedent('''
    import os, signal, sys
    import objstore.memory.forget as f
    from objstore.core.reflog import Reflog
    where = sys.argv[1]
    if where == "tombstone":
        real, calls = f.put_tombstone, []
        def put(*a, **k):
            calls.append(1)
            if len(calls) == 2:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*a, **k)
        f.put_tombstone = put
    else:
        real_replace = Reflog.replace
        def stop(self, ref, *a, **k):
            if ref.startswith("facts/"):
                os.kill(os.getpid(), signal.SIGKILL)
            return real_replace(self, ref, *a, **k)
        Reflog.replace = stop
    from cmds.entry import entry
    sys.argv = ["mem", "forget", "--credentials", "--yes"]
    entry()
''')


def _store_with_cut_tokens(store_path) -> None:
    with open_store(store_path, create=True) as s:    # as a mem before session 18 stored them (a cut token)
        for i, key in enumerate(KEYS):
            remember(s, key, f"summary {i} " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8\u2026", kind="summary")


def _killed(store_path, where: str) -> None:
    p = subprocess.run([sys.executable, "-c", _KILLED, where], cwd=REPO, capture_output=True,
                       env={**os.environ, **PERSON, "MEM_HOME": str(store_path)}, timeout=120)
    assert p.returncode == -9, (p.returncode, p.stderr.decode()[-2000:])


def _killed_with_a_remote(mem, store_path, tmp_path, where: str):
    """The store with cut tokens, a folder remote ``r`` (returned), then the forget killed at ``where``."""
    _store_with_cut_tokens(store_path)
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("remote", "add", "r", str(remote), env=PERSON)
    _killed(store_path, where)
    return remote


def _notes(store_path) -> list[str]:
    d = store_path / "forget-unfinished"
    return os.listdir(d) if d.is_dir() else []


def test_a_credentials_forget_killed_before_its_tombstones_leaves_a_note(mem, store_path, tmp_path):
    remote = _killed_with_a_remote(mem, store_path, tmp_path, "tombstone")
    assert len(_notes(store_path)) == 1
    out = tmp_path / "out.jsonl"
    for args in (("export", "-o", str(out)), ("push", "r"), ("backup", "r")):
        r = mem(*args, exit_code=6, env=PERSON)
        assert "mem forget --credentials --yes" in r.stderr, r.stderr
    assert not out.exists() and not scan_store(remote, [TOKEN])
    assert "'mem forget --credentials'" in mem("fsck", exit_code=6).stdout
    mem("remember", "project/demo/other", "a write: its lock's recovery redacts what was tombstoned", env=PERSON)
    assert len(_notes(store_path)) == 1            # the rest still holds the token: only a rerun finishes it
    mem("export", "-o", str(out), exit_code=6, env=PERSON)

    mem("forget", "--credentials", "--yes", env=PERSON)
    assert _notes(store_path) == []
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [TOKEN])
    mem("export", "-o", str(out), env=PERSON)
    mem("push", "r", env=PERSON)
    assert TOKEN not in out.read_bytes() and not scan_store(remote, [TOKEN])


def test_a_credentials_forget_killed_after_its_tombstones_is_not_exported_half_done(mem, store_path, tmp_path):
    remote = _killed_with_a_remote(mem, store_path, tmp_path, "rewrite")
    assert _notes(store_path) == []                # its D lines are written: the next lock holder finishes it
    out = tmp_path / "out.jsonl"
    r = mem("export", "-o", str(out), exit_code=6, env=PERSON)   # a reader does not finish it: it refuses
    assert "mem fsck --repair" in r.stderr and not out.exists()
    mem("push", "r", env=PERSON)                   # its lock finishes the forget before anything is sent
    assert not scan_store(remote, [TOKEN])
    mem("export", "-o", str(out), env=PERSON)
    assert TOKEN not in out.read_bytes()


def test_a_credentials_note_left_with_nothing_to_redact_is_cleared_by_the_rerun(mem, store_path):
    _store_with_cut_tokens(store_path)
    _killed(store_path, "tombstone")
    for key in KEYS:   # the rest forgotten another way: nothing holds a credential, the note still stands
        mem("forget", key, "--yes", env=PERSON)
    assert len(_notes(store_path)) == 1
    r = mem("forget", "--credentials", "--yes", env=PERSON)
    assert "nothing changed" in r.stdout
    assert _notes(store_path) == []
    mem("export", "-o", "-", env=PERSON)
