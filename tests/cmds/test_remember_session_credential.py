"""``mem remember --session``/``--agent`` get the credential check keys get:
the namespace is stored in the clear (the fact version, the session list,
ref names), so a token pasted as a session id is refused, with exit 2 and
nothing written.  Before, only the key was checked."""

from __future__ import annotations

import pytest

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize("args, field", [(("--session", TOKEN), "session"),
                                         (("--session", f"S1.agent-{TOKEN}"), "agent"),
                                         (("--session", "S1", "--agent", TOKEN), "agent")])
def test_a_session_holding_a_credential_is_refused(mem, store, store_path, args, field):
    r = mem("remember", "user/editor", "vim", *args, exit_code=2)
    assert f"the {field} holds a credential" in r.stderr, r.stderr   # the field that holds it (scan12)
    assert TOKEN not in r.stderr
    assert not any(TOKEN in p.name for p in store_path.rglob("*"))
    mem("get", "user/editor", exit_code=4)


def test_a_plain_session_still_writes(mem, store):
    r = mem("remember", "user/editor", "vim", "--session", "S1.retry-2", "--agent", "explorer", "--json")
    assert r.json["namespace"] == "S1.retry-2.agent-explorer"
