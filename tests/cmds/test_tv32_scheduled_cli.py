"""test32 X15 and X2 through the CLI: what ``remember`` says around a
version scheduled ahead, and ``get`` of a key not valid yet."""

from __future__ import annotations

import re


def test_remember_names_the_scheduled_version_it_will_lose_to(invoke):
    invoke("init")
    invoke("remember", "project/api/zone", "z2 from 2099", "--valid-from", "2099-01-01T00:00:00Z")
    r = invoke("remember", "project/api/zone", "z3 for now")
    assert re.search(r"^note: v1 \(user_stated, [0-9a-f]{12}\) is scheduled from 2099-01-01T00:00:00Z and takes over",
                     r.stderr, re.M)
    assert invoke("get", "project/api/zone").stdout == "z3 for now\n"


def test_a_lower_trust_schedule_is_not_named_and_never_wins(invoke):
    invoke("init")
    invoke("remember", "project/api/region", "us-east-1", "--valid-from", "2099-01-01T00:00:00Z",
           "--trust", "agent_observed")
    r = invoke("remember", "project/api/region", "eu-west-2")
    assert "takes over" not in r.stderr
    assert invoke("get", "project/api/region", "--as-of", "2099-06-01T00:00:00Z").stdout == "eu-west-2\n"


def test_get_of_a_key_valid_only_from_later_says_no_current_value(invoke):
    invoke("init")
    w = invoke("remember", "project/api/dc", "eu-west-2", "--valid-from", "2099-01-01T00:00:00Z")
    assert "no current value until then" in w.stdout
    r = invoke("get", "project/api/dc", exit_code=4)
    assert "has no current value (not valid yet: v1 is scheduled, valid from 2099-01-01T00:00:00Z)" in r.stderr
    ctx = invoke("context", "--project", "api")
    assert "eu-west-2" not in ctx.stdout


def test_forget_of_the_parents_value_says_no_sibling_value_becomes_current(invoke):
    """test32 X5 through the CLI: the forget's note no longer says a
    sibling's value "becomes current again"; get and context serve none."""
    invoke("init")
    invoke("remember", "project/api/cache", "redis 7")
    invoke("remember", "project/api/cache", "memcached", "--session", "S1", "--agent", "explorer")
    invoke("remember", "project/api/cache", "dragonfly", "--session", "S1", "--agent", "tester")
    r = invoke("forget", "project/api/cache@v1", "--yes")
    assert "becomes current again" not in r.stdout
    assert "no other value becomes current (sub-agents disagree: S1.agent-explorer, S1.agent-tester" in r.stdout
    invoke("get", "project/api/cache", exit_code=4)
    assert "dragonfly" not in invoke("context", "--project", "api").stdout
    assert invoke("get", "project/api/cache", "--session", "S1", "--agent", "tester").stdout == "dragonfly\n"
