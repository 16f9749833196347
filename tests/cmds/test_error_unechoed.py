"""An error message never echoes a credential the person typed as an id,
a session or a sub-agent (test32 X12: ``not an object id: 'ghp_…'`` went to
the terminal and, when an agent ran the command, into its transcript);
usage errors (click's) and the value fields were already hidden."""

from __future__ import annotations

import json

import pytest

TOKEN = "ghp_" + "Zq7" * 12   # a GitHub token's shape (the value rule's github-token)


@pytest.mark.parametrize("args", [
    ("remember", "project/api/x", "z", "--relates-to", TOKEN),
    ("remember", "project/api/x", "z", "--expect", TOKEN),
    ("cat-object", TOKEN),
    ("queue", "accept", TOKEN),
    ("recall", "hi", "--from-agent", TOKEN),
])
def test_an_error_naming_what_was_typed_hides_a_credential(mem, args):
    mem("init")
    r = mem(*args, exit_code=None)
    assert r.exit_code in (2, 4), (r.exit_code, r.stderr)
    assert TOKEN not in r.stdout + r.stderr and TOKEN[4:20] not in r.stderr, r.stderr
    assert "[REDACTED:github-token]" in r.stderr, r.stderr   # the message still says what was refused
    j = mem(*args, "--json", exit_code=None)
    assert TOKEN not in j.stdout + j.stderr
    assert json.loads(j.stderr.strip().splitlines()[-1])["message_type"] == "exit_error"


def test_an_error_without_a_credential_is_unchanged(mem):
    mem("init")
    r = mem("cat-object", "xyz-not-hex-0123", exit_code=2)
    assert "not an object id: 'xyz-not-hex-0123'" in r.stderr, r.stderr
