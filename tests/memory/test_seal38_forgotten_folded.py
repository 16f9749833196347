"""test37b T12: after ``mem forget KEY`` of "zebra-lantern-7781", an agent's write of it with spaces,
underscores, dots, slashes or no separator ("zebra lantern 7781", "zebra_lantern_7781", "zebralantern7781")
was written and served, and a turn quoting it so was stored in the clear: the forget's ``forgotten:KEY`` seal
rules now hold the identifier's separator-folded form too (``core.textwindows``), which a run of its words
joined by any separator matches.  Real ``mem`` processes on a real store."""

from __future__ import annotations

from objstore import Store
from objstore.memory.sealrules import load, withhold_sealed_values

KEY = "project/acme/launch"
SPELLINGS = ("zebra lantern 7781", "Zebra Lantern 7781", "zebra_lantern_7781", "zebralantern7781",
             "zebra-lantern 7781", "zebra.lantern.7781", "zebra/lantern/7781", "the launch is zebra_lantern_7781")


def test_an_agent_cannot_write_a_forgotten_identifier_back_with_other_separators(mem, tmp_path):
    home = str(tmp_path / "store")
    mem("--home", home, "remember", KEY, "zebra-lantern-7781")
    mem("--home", home, "forget", KEY, "--yes")
    agent = {"CLAUDECODE": "1"}
    for body in SPELLINGS:
        r = mem("--home", home, "remember", KEY, body, env=agent, exit_code=6)
        assert "forgotten" in r.stderr, (body, r.stderr)
    r = mem("--home", home, "remember", "project/acme/codename", "zebra lantern 7781", env=agent, exit_code=6)
    assert "forgotten" in r.stderr
    # near misses and unrelated words are written
    for body in ("zebra lantern 77810", "zebra lantern", "a zebralantern7781x build"):
        mem("--home", home, "remember", "project/acme/other", body, env=agent)
    # a captured turn quoting it so is withheld (the turn writer's rules)
    rules = load(Store(tmp_path / "store"))
    text = "the agent said zebra lantern 7781 earlier, and zebra_lantern_7781 too"
    kept, n = withhold_sealed_values(text, rules)
    assert n == 2 and "7781" not in kept and kept.startswith("the agent said [REDACTED:forgotten-value] earlier"), kept
