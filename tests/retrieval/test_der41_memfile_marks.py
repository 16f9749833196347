"""test40 T15: the person's ``project/acme/db-port`` 5432 was marked "MAY
BE OUT OF DATE: a memory-file line written later …" by memory.md lines that
do not replace it — a line naming 5432 itself, another environment's port
("Test DB port", "Staging DB port"), a negation ("Do not use DB port 6543.")
— and left unmarked by lines that do, spelt otherwise ("Database port:
6543", "DB-Port 6543").  The other way round, the person's later fact
marked the line "Do not use DB port 5432." as replaced.  Real ``mem
remember`` / ``mem memory add`` / ``mem context`` processes."""

from __future__ import annotations

import time

import pytest

MARK = "MAY BE OUT OF DATE: a memory-file line written later"
LINE_MARK = "(MAY BE OUT OF DATE: project/acme/db-port"


def _fact_line(block: str) -> str:
    return next(x for x in block.splitlines() if x.startswith("- project/acme/db-port "))


def _after_fact(mem, home, lines):
    env = {"MEM_HOME": str(home)}
    mem("remember", "project/acme/db-port", "5432", env=env)   # the person's own, user_stated
    time.sleep(0.05)
    for line in lines:
        mem("memory", "add", "memory", line, "--project", "acme", env=env)
    return mem("context", "--project", "acme", env=env).stdout


def test_lines_that_do_not_restate_the_persons_value_do_not_mark_it(mem, tmp_path):
    block = _after_fact(mem, tmp_path / "s", [
        "DB port 5432 is blocked on 6543 hosts",                   # names 5432 itself
        "Test DB port: 6543 (the production one stays 5432)",      # another environment, and 5432 again
        "Staging DB port: 6543",                                   # another environment
        "Legacy DB port: 6543",                                    # an old copy
        "Do not use DB port 6543.",                                # a negation
        "DB port for staging: 6543",
    ])
    assert MARK not in _fact_line(block), block


@pytest.mark.parametrize("line", ["Database port: 6543", "DB-Port 6543", "DB port: 6543 (not 5432)",
                                  "DB port changed from 5432 to 6543."])
def test_a_line_that_replaces_it_in_other_words_marks_it(mem, tmp_path, line):
    assert MARK in _fact_line(_after_fact(mem, tmp_path / "s", [line])), line


def test_the_persons_later_value_does_not_mark_a_negation_or_another_environment(mem, tmp_path):
    env = {"MEM_HOME": str(tmp_path / "s")}
    for line in ("Staging DB port: 5432", "Do not use DB port 5432.", "Database port: 5432"):
        mem("memory", "add", "memory", line, "--project", "acme", env=env)
    time.sleep(0.05)
    mem("remember", "project/acme/db-port", "6543", env=env)
    block = mem("context", "--project", "acme", env=env).stdout
    marked = {x for x in block.splitlines() if LINE_MARK in x}
    assert marked == {f"Database port: 5432 {LINE_MARK}, recorded later, holds another value)"}, block


@pytest.mark.parametrize("line", ["The DB port moves to 6543 next month.", "If the DB port is 6543, restart the app.",
                                  "Maybe the DB port is 6543?", "The DB port on my laptop is 6543.",
                                  "The DB port in docker-compose is 6543."])
def test_a_plan_a_condition_a_question_or_another_machine_marks_nothing(mem, tmp_path, line):
    """test41 T31 (a regression of der41's key spellings): these lines state
    no value now, or another machine's; they marked the person's fact, and
    the person's later fact marked them (an instruction told as stale)."""
    assert MARK not in _fact_line(_after_fact(mem, tmp_path / "s", [line])), line
    env = {"MEM_HOME": str(tmp_path / "t")}
    mem("memory", "add", "memory", line, "--project", "acme", env=env)
    time.sleep(0.05)
    mem("remember", "project/acme/db-port", "5432", env=env)
    assert LINE_MARK not in mem("context", "--project", "acme", env=env).stdout, line
