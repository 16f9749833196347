"""test38 T3 (der38's limits): a memory.md line the person wrote after a
fact marked that fact MAY BE OUT OF DATE only when the fact was the
person's own and its value a number, host or version.  An older derived or
agent-written fact, or a word value ("flake8" against "The linter is
ruff."), stayed unmarked beside the newer line.  Real ``mem`` processes."""

from __future__ import annotations

import time

MARK = "MAY BE OUT OF DATE: a memory-file line written later"


def _line(block: str, key: str) -> str:
    return next(x for x in block.splitlines() if x.startswith(f"- {key} "))


def test_a_later_memory_file_line_marks_any_fact_it_contradicts(mem):
    mem("remember", "project/acme/linter", "flake8", "--trust", "derived")
    mem("remember", "project/acme/db-port", "5432", "--trust", "agent_observed")
    mem("remember", "project/acme/formatter", "black")
    mem("remember", "project/acme/test-runner", "pytest", "--trust", "derived")
    mem("remember", "project/acme/queue-port", "5672", "--trust", "derived")
    time.sleep(0.05)
    for line in ("The linter is ruff.", "The db port is 6543.", "The formatter is ruff format.",
                 "The test runner is pytest with xdist.", "The cache port is 6380."):
        mem("memory", "add", "memory", line, "--project", "acme")
    block = mem("context", "--project", "acme").stdout
    for key in ("linter", "db-port", "formatter"):
        assert MARK in _line(block, f"project/acme/{key}"), block
    # the line agrees with the fact, or names another thing: no mark
    assert MARK not in _line(block, "project/acme/test-runner"), block
    assert MARK not in _line(block, "project/acme/queue-port"), block
    assert "MAY BE OUT OF DATE" not in mem("memory", "show", "memory", "--project", "acme").stdout


def test_a_fact_recorded_after_the_line_is_not_marked(mem):
    mem("memory", "add", "memory", "The linter is ruff.", "--project", "acme")
    time.sleep(0.05)
    mem("remember", "project/acme/linter", "flake8", "--trust", "derived")
    block = mem("context", "--project", "acme").stdout
    assert MARK not in _line(block, "project/acme/linter"), block
