"""test27 V18: ``mem queue accept`` of an agent's proposal made against v1
silently replaced the value the person wrote after it was queued.  It is
refused (exit 6) naming the newer version; ``--force`` accepts it anyway,
``--value`` writes the value given.  Real ``mem`` processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}
AGENT = {"MEM_AGENT": "claude"}


def test_accept_refuses_to_replace_a_value_written_after_the_proposal(mem):
    mem("remember", "project/q/db", "port 5432", env=PERSON)
    mem("remember", "project/q/db", "port 6543", env=AGENT)                    # queued: a challenge
    item = mem("queue", "--json").json[0]["id"]
    mem("remember", "project/q/db", "port 7000 (moved again)", env=PERSON)     # the person, later
    r = mem("queue", "accept", item[:12], env=PERSON, exit_code=6)
    assert "v2, which you wrote after this proposal was queued" in r.stderr and "--force" in r.stderr, r.stderr
    assert mem("get", "project/q/db").stdout.strip() == "port 7000 (moved again)"
    assert len(mem("queue", "--json").json) == 1                               # still queued
    mem("queue", "accept", item[:12], "--force", env=PERSON)
    assert mem("get", "project/q/db").stdout.strip() == "port 6543"
    # a proposal made after the person's last write is accepted as before
    mem("remember", "project/q/db", "port 6000", env=AGENT)
    mem("queue", "accept", mem("queue", "--json").json[0]["id"][:12], env=PERSON)
    assert mem("get", "project/q/db").stdout.strip() == "port 6000"
