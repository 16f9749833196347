"""Shell capture records are spooled before anything waits (real ``mem
hook shell`` processes, a real lock holder):

* test27b X5: commands recorded while another process held the store lock
  longer than a writer's lock wait were dropped for good ("StoreLocked",
  "HookTimeout:budget" in the hook log).  They are kept in
  ``cache/shell-spool/`` and stored once the lock is free, also when the
  writer that made them was killed meanwhile (the next record's writer
  stores them);
* test27 V12: a record whose predecessor's writer started late (a loaded
  machine) was stored first after a 5 s wait, so ``mem show`` listed the
  commands out of order.  A record waits in the spool for the one numbered
  before it (up to 30 s) and the two are stored in the order typed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cmds._hookshell import SHELL_LOCK_WAIT_S
from objstore.capture.shellcap import SHELL_SPOOL_DIR
from tests.hooks._util import REPO, hook_log, lock_held, turns

SID = "shell-host-20261205T120000-4242"


def _env(tmp_path: Path, store: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(store), MEM_SHELL_CAPTURE="1", HOME=str(tmp_path))
    return env


def _record(env: dict, seq: int, line: str) -> subprocess.Popen:
    """One background ``mem hook shell`` as the shell integration starts it."""
    p = subprocess.Popen([sys.executable, "-m", "cmds", "hook", "shell", "--session", SID, "--cwd", "/tmp",
                          "--status", "0", "--start", str(1_796_000_000_000 + seq), "--duration", "5",
                          "--seq", str(seq)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env, cwd=REPO)
    p.stdin.write(line.encode())
    p.stdin.close()
    return p


def _spooled(store: Path) -> int:
    return len(list((store / SHELL_SPOOL_DIR).glob("*/*.json")))


def _until(check, what: str, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, what
        time.sleep(0.05)


def _lines(store: Path) -> list[str]:
    return [t[3].split("\n")[0] for t in sorted(turns(store), key=lambda t: t[1]) if t[0] == SID]


def test_records_made_while_the_lock_is_held_are_kept_and_stored_in_order(tmp_path, mem):
    store = tmp_path / "s"
    mem("--home", str(store), "init")
    env = _env(tmp_path, store)
    with lock_held(store, env):                                  # stands for an import or gc holding it
        procs = [_record(env, seq, f"echo shellcmd{seq}") for seq in (3, 1, 2)]   # started out of order
        _until(lambda: _spooled(store) == 3, "the three records were not spooled")
        time.sleep(SHELL_LOCK_WAIT_S + 2)   # the scenario: held past a writer's whole wait for the lock
        assert _lines(store) == []
    for p in procs:
        assert p.wait(180) == 0, p.stderr.read()
    assert _lines(store) == ["$ echo shellcmd1", "$ echo shellcmd2", "$ echo shellcmd3"], hook_log(store)
    assert _spooled(store) == 0


def test_a_record_whose_writer_was_killed_is_stored_by_the_next(tmp_path, mem):
    store = tmp_path / "s"
    mem("--home", str(store), "init")
    env = _env(tmp_path, store)
    with lock_held(store, env):
        first = _record(env, 1, "echo killedwriter")
        _until(lambda: _spooled(store) == 1, "the record was not spooled")
        first.send_signal(signal.SIGKILL)                        # a logout, the budget's hard stop
        first.wait(60)
    assert _lines(store) == [] and _spooled(store) == 1          # kept, not lost
    r = mem("--home", str(store), "doctor", "--json", exit_code=None)
    assert any(f["check"] == "capture" and f["message"].startswith("1 shell command record not stored yet")
               for f in r.json["findings"]), r.stdout
    second = _record(env, 2, "echo nextwriter")
    assert second.wait(180) == 0
    assert _lines(store) == ["$ echo killedwriter", "$ echo nextwriter"]
    assert _spooled(store) == 0


def test_a_record_waits_for_a_late_predecessor(tmp_path, mem):
    store = tmp_path / "s"
    mem("--home", str(store), "init")
    env = _env(tmp_path, store)
    second = _record(env, 2, "echo typedsecond")
    _until(lambda: _spooled(store) == 1, "the record was not spooled")
    time.sleep(6)   # the scenario: the first command's writer starts later than the 5 s order wait had been
    assert second.poll() is None and _lines(store) == []        # still waiting for it, nothing stored
    first = _record(env, 1, "echo typedfirst")
    assert first.wait(180) == 0 and second.wait(180) == 0
    assert _lines(store) == ["$ echo typedfirst", "$ echo typedsecond"], hook_log(store)
