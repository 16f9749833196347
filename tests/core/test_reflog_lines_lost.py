"""A fact ref's reflog that lost lines (test31 U6): a deleted or emptied
reflog, a last line cut by a crash, a line gone from the middle.  fsck
found only a missing *last* line; these passed as "ok" and a cut line was
read as a move at time 0.  Now each is named, and ``fsck --repair``
records what it can.  Real ``mem`` processes on a real store."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest


@pytest.fixture
def home(mem) -> Path:
    for v in range(1, 5):
        mem("remember", "project/api/port", f"port 900{v}")
    return Path(os.environ["MEM_HOME"])


def _log(home: Path) -> Path:
    return home / "logs" / "refs" / "facts" / "project" / "api" / "port"


def _said(r) -> str:
    return r.stdout + r.stderr


def _moves(mem) -> list[str]:
    return [ln for ln in mem("reflog", "project/api/port").stdout.splitlines() if ln.strip()]


def test_a_deleted_reflog_is_named_and_repair_records_the_head(home, mem):
    assert "reflog" not in _said(mem("fsck"))
    _log(home).unlink()
    r = mem("fsck")
    assert "its reflog is missing or empty" in _said(r), _said(r)
    r = mem("fsck", "--repair")
    assert "recorded the head of facts/project/api/port in its reflog" in r.stdout, r.stdout
    assert "reflog" not in _said(mem("fsck"))
    (line,) = _moves(mem)
    assert "the reflog was lost" in line
    assert mem("get", "project/api/port").stdout == "port 9004\n"


def test_an_emptied_reflog_is_named_too(home, mem):
    _log(home).write_bytes(b"")
    assert "its reflog is missing or empty" in _said(mem("fsck"))


def test_a_last_line_cut_by_a_crash_is_damage_not_a_move_at_time_zero(home, mem):
    data = _log(home).read_bytes()
    _log(home).write_bytes(data[:-20])   # the time's last digits, the command and the LF gone
    r = mem("fsck", exit_code=13)
    assert "line 4" in _said(r) and "damaged reflog" in _said(r), _said(r)
    mem("reflog", "project/api/port", exit_code=13)
    mem("fsck", "--repair")
    assert "reflog" not in _said(mem("fsck"))
    moves = _moves(mem)
    assert len(moves) == 4 and not any(m.startswith("1970") for m in moves), moves
    assert "the line a stopped write did not add" in moves[0]


def test_a_line_lost_in_the_middle_is_named_and_bridged(home, mem):
    lines = _log(home).read_bytes().rstrip(b"\n").split(b"\n")
    del lines[2]
    _log(home).write_bytes(b"\n".join(lines) + b"\n")
    r = mem("fsck")
    assert "lacks the move before entry 3" in _said(r), _said(r)
    r = mem("fsck", "--repair")
    assert "the line of a move it lost" in r.stdout, r.stdout
    assert "lacks" not in _said(mem("fsck"))
    moves = _moves(mem)
    assert len(moves) == 4 and "a lost line" in moves[1], moves
    heads = [re.findall(r"\b[0-9a-f]{12}\b", m) for m in moves]   # newest first: each move starts where the older ended
    assert all(newer[0] == older[-1] for newer, older in zip(heads, heads[1:])), moves


def test_several_lines_lost_at_the_end_are_named_and_bridged(home, mem):
    """test31b V5: a full disk fails every write's line until space is
    freed; two lines lost at the end passed fsck as "ok"."""
    lines = _log(home).read_bytes().rstrip(b"\n").split(b"\n")
    _log(home).write_bytes(b"\n".join(lines[:-2]) + b"\n")
    assert "its moves since" in _said(mem("fsck"))
    mem("fsck", "--repair")
    assert "reflog" not in _said(mem("fsck"))
    moves = _moves(mem)
    assert len(moves) == 3 and "the line a stopped write did not add" in moves[0], moves


def test_a_write_after_a_cut_line_keeps_its_own_line_whole(home, mem):
    """test31b V5: the next write's line was glued to a line a crash cut,
    so repair dropped both and left the reflog two moves behind the head.
    The writer cuts the torn line off first; its move is a gap fsck names
    and the repair bridges."""
    _log(home).write_bytes(_log(home).read_bytes()[:-20])
    mem("remember", "project/api/port", "port 9005")
    assert _log(home).read_bytes().endswith(b"remember\n")
    assert "lacks the move before entry 4" in _said(mem("fsck"))
    mem("fsck", "--repair")
    assert "reflog" not in _said(mem("fsck"))
    moves = _moves(mem)
    assert len(moves) == 5 and moves[0].endswith("remember") and "a lost line" in moves[1], moves
    heads = [re.findall(r"\b[0-9a-f]{12}\b", m) for m in moves]
    assert all(newer[0] == older[-1] for newer, older in zip(heads, heads[1:])), moves
