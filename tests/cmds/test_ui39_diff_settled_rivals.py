"""test38 T9.14: sibling sub-agents disagreed (no current value), then
the person chose one's value; ``mem diff KEY`` diffed the choice against
the newest rival, the very value it took: "no change in the value".  Now
it diffs against the rival it replaced, and says which it settled."""

from __future__ import annotations

S = "0a1b2c3d-0000-4000-8000-000000000001"


def _rivals(invoke):
    invoke("remember", "project/a/db", "postgres 16", "--session", S, "--agent", "alpha")
    invoke("remember", "project/a/db", "mysql 8", "--session", S, "--agent", "beta")
    invoke("diff", "project/a/db", exit_code=4)   # no current value: name two versions


def test_diff_of_a_choice_between_rivals_shows_what_it_replaced(invoke):
    _rivals(invoke)
    invoke("remember", "project/a/db", "mysql 8")             # the person takes beta's value
    r = invoke("diff", "project/a/db")
    assert r.stdout.startswith("project/a/db  v1 "), r.stdout
    assert "(no change in the value)" not in r.stdout and "[-postgres-]{+mysql+}" in r.stdout
    assert f"note: v3 settled sub-agents that disagreed (v1 {S}.agent-alpha, v2 {S}.agent-beta): it took v2's " \
           "value; diffed against v1, the value it replaced" in r.stdout
    j = invoke("diff", "project/a/db", "--json").json
    assert j["a"]["version"] == 1 and j["changed"] and [x["version"] for x in j["settled"]] == [1, 2]
    invoke("remember", "project/a/db", "sqlite 3")             # a later change diffs as before, no note
    r = invoke("diff", "project/a/db")
    assert "v3 " in r.stdout.splitlines()[0] and "settled" not in r.stdout
    assert invoke("diff", "project/a/db", "--json").json["settled"] == []


def test_a_new_value_over_rivals_diffs_against_the_newest(invoke):
    _rivals(invoke)
    invoke("remember", "project/a/db", "sqlite 3")
    r = invoke("diff", "project/a/db")
    assert r.stdout.startswith("project/a/db  v2 ") and "it took" not in r.stdout
    assert "diffed against v2, the value it replaced" in r.stdout
