"""test37 T11: ``mem revert KEY`` took the chain's previous version, not
the value in force before the change: after a version scheduled for 2027
(``--valid-from``) and a newer value, the revert made the 2027 value current
now, as the person's; likewise a sub-agent's value (never the person's
view).  ``mem diff KEY`` compared against the scheduled one too.  Now both
take the version that was current for the person just before the change.
Real ``mem`` processes."""

from __future__ import annotations

import json

KEY = "project/api/region"


def test_revert_and_diff_take_the_value_in_force_not_a_scheduled_one(mem, tmp_path):
    home = str(tmp_path / "store")
    mem("--home", home, "remember", KEY, "eu-west-1")
    mem("--home", home, "remember", KEY, "ap-south-7 (the move planned for 2027)",
        "--valid-from", "2027-06-01T00:00:00Z")
    mem("--home", home, "remember", KEY, "eu-north-1")
    d = json.loads(mem("--home", home, "diff", KEY, "--json").stdout)
    assert (d["a"]["version"], d["b"]["version"]) == (1, 3), d
    mem("--home", home, "revert", KEY)
    assert mem("--home", home, "get", KEY).stdout.strip() == "eu-west-1"
    log = json.loads(mem("--home", home, "log", KEY, "--json").stdout)
    assert [v["body"] for v in log][:1] == ["eu-west-1"], log
    assert any(v["body"].startswith("ap-south-7") for v in log)       # the schedule stays in the history


def test_revert_does_not_make_a_sub_agents_value_the_persons(mem, tmp_path):
    home = str(tmp_path / "store")
    key = "project/api/db"
    mem("--home", home, "remember", key, "db is postgres-a", env={"MEM_AGENT": "codex"})
    mem("--home", home, "remember", key, "db is sqlite-from-subagent", "--session",
        "bbbbbbbb-1111-4111-8111-bbbbbbbbbbbb", "--agent", "x1", env={"MEM_AGENT": "claude"})
    assert mem("--home", home, "get", key).stdout.strip() == "db is postgres-a"
    mem("--home", home, "remember", key, "db is postgres-c")
    assert len(json.loads(mem("--home", home, "log", key, "--json").stdout)) == 3    # the sub-agent's is v2
    mem("--home", home, "revert", key)
    assert mem("--home", home, "get", key).stdout.strip() == "db is postgres-a"


def test_revert_of_a_scheduled_change_cancels_it_at_its_date_too(mem, tmp_path):
    """test37b T9: reverting the head scheduled for 2027 wrote the value in force now, but the 2027 version
    stayed scheduled and became current on its date.  Now the revert takes effect at that date too."""
    home = str(tmp_path / "store")
    key = "project/acme/db"
    mem("--home", home, "remember", key, "pg-1")
    mem("--home", home, "remember", key, "pg-2")
    mem("--home", home, "remember", key, "pg-2027", "--valid-from", "2027-06-01")
    mem("--home", home, "revert", key)
    assert mem("--home", home, "get", key).stdout.strip() == "pg-2"
    assert mem("--home", home, "get", key, "--as-of", "2027-07-01").stdout.strip() == "pg-2"
