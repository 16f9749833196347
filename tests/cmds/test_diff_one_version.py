"""``mem diff KEY`` of a key with one version exited 4 ("not found") for a
key that exists (tester test14 (f)): now it says there is nothing to diff,
exit 0; a version that does not exist is still exit 4."""

from __future__ import annotations


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
