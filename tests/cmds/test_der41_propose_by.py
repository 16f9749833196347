"""test40 T25: an agent's ``mem memory propose --by user`` was queued and
shown to the owner as "by user" (``queue show``: ``agent_observed by user``):
the agent read as the person.  Now an agent caller's proposal is recorded
and shown as the agent's, a different ``--by`` only beside it; a person's
``--by`` is recorded as given.  Real ``mem`` processes."""

from __future__ import annotations


def _owners(mem) -> dict[str, str]:
    return {q["note"].rsplit(": ", 1)[1]: q["owner"] for q in mem("queue", "list", "--json").json}


def test_an_agents_by_never_names_it_the_person(mem):
    mem("init")
    agent = {"MEM_AGENT": "claude"}
    mem("memory", "propose", "add", "memory", "the user prefers tabs", "--by", "user", env=agent)
    mem("memory", "propose", "add", "memory", "CI needs pg", env=agent)
    mem("memory", "propose", "add", "memory", "Deploys on Fridays", "--by", "claude", env=agent)
    mem("memory", "propose", "add", "memory", "Harness marker", "--by", "person", env={"CLAUDECODE": "1"})
    mem("memory", "propose", "add", "memory", "A person's proposal", "--by", "codex@laptop")
    assert _owners(mem) == {"the user prefers tabs": "claude (said: user)", "CI needs pg": "claude",
                            "Deploys on Fridays": "claude", "Harness marker": "claude-code (said: person)",
                            "A person's proposal": "codex@laptop"}
    item = next(q["id"] for q in mem("queue", "list", "--json").json if q["note"].endswith("prefers tabs"))
    shown = mem("queue", "show", item[:12]).stdout
    assert "proposed:  agent_observed by claude (said: user) at " in shown, shown
    assert " by user " not in shown, shown
