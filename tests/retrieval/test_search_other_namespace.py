"""test33 T18: 'mem search memcached' hit project/q/cache through a
sub-agent's own value ("agent A memcached", current for it only) and showed
the parent's "global redis" with no note (--json "resolved_from": null).
Now the hit names the namespace it matched in.  Real ``mem`` processes."""

from __future__ import annotations

import json


def test_a_hit_through_a_sub_agents_value_says_so(tmp_path, mem):
    env = {"MEM_HOME": str(tmp_path / "s7"), "MEM_NO_HELPER": "1"}
    mem("remember", "project/q/cache", "global redis", env=env)
    mem("remember", "project/q/cache", "agent A memcached", "--session", "S1", "--agent", "explorer", env=env)
    out = mem("search", "memcached", env=env).stdout
    assert "global redis" in out
    assert "(matched the value of agent explorer (session S1), current there only" in out, out
    (hit,) = json.loads(mem("search", "memcached", "--json", env=env).stdout)
    assert hit["snippet"] == "global redis" and hit["matched_namespace"] == "S1.agent-explorer", hit
    assert hit["resolved_from"] is None
    # a hit on the value shown itself carries no note
    (hit,) = json.loads(mem("search", "redis", "--json", env=env).stdout)
    assert hit["matched_namespace"] is None and hit["resolved_from"] is None, hit
    assert "matched the value of" not in mem("search", "redis", env=env).stdout
