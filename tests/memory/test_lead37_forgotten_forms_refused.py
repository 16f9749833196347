"""test37 T1: after ``mem forget KEY`` of "the codename is zebra-lantern-7781",
an agent's write of the identifier alone ("zebra-lantern-7781"), or in any
other wording ("the codename is now zebra-lantern-7781"), was written at
``agent_observed``, became current and was injected in every session: only
the whole forgotten sentence was refused, while the turn writer already
withheld the value-shaped form (the forget's ``forgotten:KEY`` seal rules).
Now a write below ``user_stated`` holding a span one of those rules matches
is refused (exit 6) as a forgotten value is; a person's own write still
stands.  Real ``mem`` processes on a real store."""

from __future__ import annotations

KEY = "project/web/codename"


def test_an_agent_cannot_write_a_forgotten_identifier_back_in_another_wording(mem, tmp_path):
    home = str(tmp_path / "store")
    mem("--home", home, "remember", KEY, "the codename is zebra-lantern-7781")
    mem("--home", home, "forget", KEY, "--yes")
    agent = {"MEM_AGENT": "codex"}
    for body in ("zebra-lantern-7781", "the codename is now zebra-lantern-7781", "ZEBRA-LANTERN-7781 it is",
                 "ｚｅｂｒａ-lantern-7781"):
        r = mem("--home", home, "remember", KEY, body, env=agent, exit_code=6)
        assert "forgotten" in r.stderr, (body, r.stderr)
    # under another key too: the turns of every session withhold it, so no fact serves it either
    r = mem("--home", home, "remember", "project/web/name", "call it zebra-lantern-7781", env=agent, exit_code=6)
    assert "forgotten" in r.stderr
    assert "zebra-lantern" not in mem("--home", home, "context", "--project", "web").stdout
    # an unrelated value of the key and a near miss are written
    mem("--home", home, "remember", KEY, "the codename is zebra-lantern-7782", env=agent)
    mem("--home", home, "remember", "project/web/other", "zebra-lantern-77810 is a different build", env=agent)
    # the person may bring it back
    mem("--home", home, "remember", KEY, "zebra-lantern-7781")
    assert mem("--home", home, "get", KEY).stdout.strip() == "zebra-lantern-7781"
