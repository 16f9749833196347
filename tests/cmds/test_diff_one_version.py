"""``mem diff KEY`` of a key with one version exited 4 ("not found") for a
key that exists (tester test14 (f)): now it says there is nothing to diff,
exit 0; a version that does not exist is still exit 4."""

from __future__ import annotations
from tests.conftest import word_in


def test_diff_of_a_single_version_is_nothing_to_diff(invoke):
    invoke("remember", "project/a/f", "one")
    r = invoke("diff", "project/a/f")
    assert "has no version before v1" in r.stdout and "nothing to diff" in r.stdout and not r.stderr
    d = invoke("diff", "project/a/f", "--json").json
    assert d["a"] == d["b"] and d["a"]["version"] == 1 and d["changed"] is False
    assert "no version 3" in invoke("diff", "project/a/f", "v3", exit_code=4).stderr
    invoke("diff", "project/a/nope", exit_code=4)
    invoke("remember", "project/a/f", "two")
    assert "[-one-]{+two+}" in invoke("diff", "project/a/f").stdout


def test_diff_says_a_version_was_forgotten(invoke):
    """``mem diff KEY v1`` after ``mem forget KEY@v1`` diffed the emptied v1
    as if its value had been "" with no word of why (tester s14): a note says
    v1 was forgotten, as ``mem log`` does; --json carries its time."""
    invoke("remember", "project/a/db", "postgres 5432")
    invoke("remember", "project/a/db", "postgres 5433 now")
    assert "note:" not in invoke("diff", "project/a/db").stdout
    invoke("forget", "project/a/db@v1", "--yes")
    out = invoke("diff", "project/a/db", "v1").stdout
    assert "note: v1 forgotten at " in out and "diffs as empty" in out and "{+postgres 5433 now+}" in out
    assert not word_in("5432", out)   # a word: the ids and the time beside it are hex and digits
    assert out.count("note:") == 1 and "note: v1" in invoke("diff", "project/a/db", "v2", "v1").stdout
    d = invoke("diff", "project/a/db", "--json").json
    assert d["a"]["forgotten"] > 0 and d["b"]["forgotten"] == 0


def test_diff_accepts_key_at_version(invoke):
    """``mem diff KEY@v2`` exited 2 "'@' is not allowed in keys" while
    KEY@vN names a version elsewhere (tester test15 (D)): it is KEY vN."""
    for v in ("one", "two", "three"):
        invoke("remember", "project/a/f", v)
    assert invoke("diff", "project/a/f@v1").stdout == invoke("diff", "project/a/f", "v1").stdout
    assert "v1 " in invoke("diff", "project/a/f@v1").stdout and "-> v3" in invoke("diff", "project/a/f@v1").stdout
    assert "[-one-]{+two+}" in invoke("diff", "project/a/f@V1", "v2").stdout
    invoke("diff", "project/a/f@v1", "v2", "v3", exit_code=2)
    assert "bad version" in invoke("diff", "project/a/f@x", exit_code=2).stderr
    invoke("diff", "project/a/f@v9", exit_code=4)
