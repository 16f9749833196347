"""``objstore.capture_shell`` with the shell's numbers (``seq``, test25
T4): a record waits for the one numbered before it, a record left out
(a command starting with a space) still counts as handled, and a record
whose predecessor never comes is stored after the wait, never lost."""

from __future__ import annotations

import threading
import time

import objstore
from objstore.capture.shellcap import SHELL_SEQ_DIR, SHELL_SPOOL_DIR, shell_seq_handled
from objstore.memory.sessions import walk_turns

SID = "shell-host-20260101T000000-42"


def _rec(store, seq: int, line: str, wait: float = 60.0):
    return objstore.capture_shell(store, session_id=SID, command_line=line, cwd="/tmp", status=0, duration_ms=1,
                                  started_ms=1_767_225_600_000 + seq, seq=seq, order_wait_s=wait)


def _lines(store) -> list[str]:
    head = store.refs.read(f"sessions/{SID}")
    return [tv.turn.text.split("\n")[0] for tv in sorted(walk_turns(store, head), key=lambda tv: tv.turn.seq)]


def test_a_record_waits_for_the_one_before_it_and_a_left_out_one_counts(store):
    third = threading.Thread(target=_rec, args=(store, 3, "echo three"))
    third.start()                               # started first: it drains the spool, waiting for 1 and 2
    while not any((store.root / SHELL_SPOOL_DIR).glob("*/*.json")):
        assert third.is_alive()
        time.sleep(0.01)
    assert _rec(store, 1, " echo hidden") is None   # left out (a leading space), but counted: spooled
    _rec(store, 2, "echo two")                  # spooled: the drainer stores it (or this call does)
    third.join(120)
    assert not third.is_alive()
    assert _lines(store) == ["$ echo two", "$ echo three"]
    assert (store.root / SHELL_SEQ_DIR / SID).read_bytes() == b"3\n"
    assert not any((store.root / SHELL_SPOOL_DIR).glob("*/*.json"))    # every record stored is gone


def test_a_record_whose_predecessor_never_comes_is_stored_after_the_wait(store):
    assert _rec(store, 5, "echo five", wait=0.2) is not None
    assert _lines(store) == ["$ echo five"]
    _rec(store, 4, "echo four (its writer was late)", wait=0.2)   # stored, after: the number only grows
    assert _lines(store) == ["$ echo five", "$ echo four (its writer was late)"]
    assert shell_seq_handled(store.root / SHELL_SEQ_DIR / SID) == 5


def test_a_damaged_number_file_reads_as_none_handled(store, tmp_path):
    p = tmp_path / "n"
    for raw in (b"", b"12", b"x\n", b"-1\n", b"9" * 30 + b"\n"):
        p.write_bytes(raw)
        assert shell_seq_handled(p) == 0, raw
    p.write_bytes(b"12\n")
    assert shell_seq_handled(p) == 12
    assert shell_seq_handled(tmp_path / "missing") == 0


def test_a_shell_command_is_named_by_the_store_s_registry_and_registers_it(store, tmp_path):
    """test30b S5: the shell capture named a command's project from its
    folder alone (``api`` for a second repository called api, whose name
    is ``globex-api`` here) and never registered a new one."""
    from objstore.memory.scope import register_project
    from tests.retrieval.test_project_identity import git_repo
    acme = git_repo(tmp_path / "acme" / "api", "git@github.com:acme/api.git")
    globex = git_repo(tmp_path / "globex" / "api", "git@github.com:globex/api.git")
    assert register_project(store, acme) == "api"
    objstore.capture_shell(store, session_id=SID, command_line="make deploy", cwd=str(globex), status=0,
                           duration_ms=1, started_ms=1_767_225_600_000, seq=1, order_wait_s=0.2)
    head = store.refs.read(f"sessions/{SID}")
    assert [tv.turn.project for tv in walk_turns(store, head)] == ["globex-api"]
    reg = (store.root / "projects.json").read_text()
    assert "github.com/globex/api" in reg
