"""test35 T12 (the note): a key two sibling sub-agents disagree on has no
current value; ``mem revert`` refuses (exit 6, naming each one's value)
instead of writing one of them back as the person's, as ``blame`` does."""

from __future__ import annotations

import json

S = "19191919-0000-0000-0000-000000000001"


def _rivals(mem):
    mem("remember", "project/x/other", "fine")
    mem("remember", "project/x/build", "make-rival-one", "--session", S, "--agent", "a1")
    mem("remember", "project/x/build", "ninja-rival-two", "--session", S, "--agent", "a2")


def test_revert_refuses_to_pick_a_sub_agents_value(mem):
    _rivals(mem)
    mem("blame", "project/x/build", exit_code=4)
    for spec in ("project/x/build", "project/x/build@v2"):
        r = mem("revert", spec, exit_code=6)
        assert "sub-agents disagree" in r.stderr
        assert "make-rival-one" in r.stderr and "ninja-rival-two" in r.stderr
        assert "mem remember project/x/build VALUE" in r.stderr
    j = json.loads(mem("revert", "project/x/build", "--json", exit_code=6).stderr)
    assert j["code"] == 6 and "ninja-rival-two" in j["message"]
    log = mem("log", "project/x/build").stdout
    assert "v3" not in log                                   # nothing written
    mem("get", "project/x/build", exit_code=4)                # still no current value for the person
    mem("remember", "project/x/build", "bazel-chosen")         # the person chooses
    assert mem("get", "project/x/build").stdout.strip() == "bazel-chosen"
    # undoing the choice would bring back one sub-agent's value as the person's: refused too
    r = mem("revert", "project/x/build", exit_code=6)
    assert "had before v3 no current value" in r.stderr and "make-rival-one" in r.stderr
    mem("remember", "project/x/build", "cmake-later")
    r = mem("revert", "project/x/build")                       # v4 over the person's v3: reverted as before
    assert "with v3's value" in r.stdout
    assert mem("get", "project/x/build").stdout.strip() == "bazel-chosen"


def test_diff_of_disagreeing_sub_agents_names_them_instead_of_a_change(mem):
    """test37 T9.7: ``mem diff KEY`` printed ``v1 -> v2 … [-one-]{+two+}``
    (exit 0) as if the second sub-agent's value had replaced the first's;
    they are rivals and the key has no current value."""
    _rivals(mem)
    r = mem("diff", "project/x/build", exit_code=4)
    assert "project/x/build has no current value (sub-agents disagree" in r.stderr, r.stderr
    assert "mem diff project/x/build vA vB" in r.stderr and r.stdout == ""
    out = mem("diff", "project/x/build", "v1", "v2").stdout              # named: compared as asked
    assert "[-make-]{+ninja+}-rival-[-one-]{+two+}" in out
    mem("remember", "project/x/build", "bazel-chosen")
    assert "-> v3" in mem("diff", "project/x/build").stdout                 # the person chose: a current value
