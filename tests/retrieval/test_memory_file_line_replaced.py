"""A memory.md line a fact recorded later replaces (test36 T15): "The
billing db port is 5432." in memory.md, then the person's ``mem remember
project/billing/db-port "the billing db port is 6543"``.  Base served the
old line first and unmarked under the header "current values only (older
values were superseded)".  Now the line is marked MAY BE OUT OF DATE with
the key, and the header says so; the file itself is unchanged.  Real
``mem`` processes."""

from __future__ import annotations

import time

from objstore.retrieval.context import HEAD_CURRENT

LINE = "The billing db port is 5432."
KEY = "project/billing/db-port"


def _line(block: str, text: str) -> str:
    return next(x for x in block.splitlines() if x.startswith(text))


def test_a_file_line_a_later_fact_replaces_is_marked(mem):
    mem("memory", "add", "memory", LINE)
    mem("memory", "add", "memory", "The cache host is cache-1.internal.")
    time.sleep(0.05)
    mem("remember", KEY, "the billing db port is 6543")
    block = mem("context", "--project", "billing").stdout
    assert "MAY BE OUT OF DATE" in _line(block, LINE) and KEY in _line(block, LINE), block
    assert "MAY BE OUT OF DATE" not in _line(block, "The cache host is"), block
    assert HEAD_CURRENT not in block, block
    assert mem("memory", "show", "memory").stdout.count("MAY BE OUT OF DATE") == 0


def test_a_line_written_after_the_fact_marks_the_fact_not_the_line(mem):
    """test37b T3: the person wrote the line after the fact (their newer word): the line is not marked, the
    older fact is (base served both unmarked under "current values only")."""
    mem("remember", KEY, "the billing db port is 6543")
    mem("remember", "project/billing/queue-port", "5672")
    mem("remember", "project/billing/cache-host", "cache-9.internal")
    time.sleep(0.05)
    mem("memory", "add", "memory", LINE)
    mem("memory", "add", "memory", "The queue port is 5673.")
    block = mem("context", "--project", "billing").stdout
    assert "MAY BE OUT OF DATE" not in _line(block, LINE) and HEAD_CURRENT not in block, block
    assert "MAY BE OUT OF DATE: a memory-file line written later" in _line(block, f"- {KEY} "), block
    assert "MAY BE OUT OF DATE" in _line(block, "- project/billing/queue-port "), block
    assert "MAY BE OUT OF DATE" not in _line(block, "- project/billing/cache-host "), block


def test_a_fact_about_another_thing_of_the_kind_does_not_mark_the_line(mem):
    """test37b T18: "The api timeout is 30 seconds." was marked by project/…/db-timeout ("5 seconds"): the
    key's own words (db, timeout) must all be the line's for its fact to replace it."""
    mem("memory", "add", "memory", "The api timeout is 30 seconds.")
    mem("remember", "project/billing/db-timeout", "5 seconds")
    mem("remember", "project/billing/web-timeout", "60 seconds")
    mem("remember", "project/billing/db/timeout", "7 seconds")   # (its name's words beyond the last too)
    block = mem("context", "--project", "billing").stdout
    assert "The api timeout is 30 seconds." in block and "MAY BE OUT OF DATE" not in block, block
    mem("remember", "project/billing/api-timeout", "45 seconds")
    block = mem("context", "--project", "billing").stdout
    assert "MAY BE OUT OF DATE: project/billing/api-timeout" in block, block
