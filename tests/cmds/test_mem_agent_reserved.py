"""test39 m10: ``MEM_AGENT=user`` (or ``person``, any case, a look-alike)
named a person, so a harness configured with it had the person's rights
(``queue accept``) and wrote ``user_stated`` facts under the author ``user``.
It names an agent now; as a write's author it is refused (exit 2), and the
documented "no agent" values still mean a person."""

from __future__ import annotations

import os

import pytest


def _env(value):
    e = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "CODEX_SANDBOX", "CODEX_THREAD_ID",
                                                            "CODEX_CI", "GEMINI_CLI", "CURSOR_AGENT")}
    e["MEM_AGENT"] = value
    return e


@pytest.mark.parametrize("value", ["user", "User", "person", "\uff55\uff53\uff45\uff52",
                                   "the user", "me", "Owner", "user@laptop", "my  user"])   # (test41 T13)
def test_a_reserved_agent_name_neither_writes_as_the_person_nor_accepts(tmp_path, mem, value):
    home = str(tmp_path / "s")
    mem("--home", home, "init")
    r = mem("--home", home, "remember", "project/x/a", "value one", env=_env(value), exit_code=2)
    assert "an author mem itself writes under" in r.stderr
    assert mem("--home", home, "keys", "--json").stdout.strip() in ("[]", "")
    r = mem("--home", home, "memory", "propose", "add", "memory", "x 2", env=_env(value), exit_code=2)
    assert "an author mem itself writes under" in r.stderr
    r = mem("--home", home, "queue", "accept", "0123456789ab", env=_env(value), exit_code=None)
    assert r.exit_code == 6 and "person" in (r.stderr + r.stdout).lower()


@pytest.mark.parametrize("value", ["0", "false", "Off", "none", ""])
def test_the_no_agent_values_still_mean_a_person(tmp_path, mem, value):
    home = str(tmp_path / "s")
    mem("--home", home, "remember", "project/x/a", "value one", env=_env(value))
    assert "user_stated" in mem("--home", home, "log", "project/x/a").stdout


def test_an_agent_name_with_control_characters_is_shown_escaped(tmp_path, mem):
    """test39b B2: the refusal printed MEM_AGENT's OSC sequence and BEL as they are."""
    home = str(tmp_path / "s")
    mem("--home", home, "init")
    r = mem("--home", home, "remember", "user/t", "vv", "--trust", "user_stated",
            env=_env("x\x1b[2J\x1b]0;pwn\x07"), exit_code=6)
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr and "\\x1b]0;pwn\\x07" in r.stderr


@pytest.mark.parametrize("value", ["codex@laptop", "claude", "meadow", "users-bot"])
def test_an_agent_name_that_only_starts_like_the_persons_still_writes(tmp_path, mem, value):
    home = str(tmp_path / "s")
    mem("--home", home, "remember", "project/x/a", "value one", env=_env(value))
    assert "agent_observed" in mem("--home", home, "log", "project/x/a").stdout
