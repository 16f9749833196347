"""Lane red13b, the tester's credential leftovers in names: ``mem forget``
kept a credential-shaped ``--session`` or KEY in the clear (a ``session:``
tombstone, the unfinished-forget note, ``no session sk-ant-…``); a malformed
name holding a credential was echoed by its format error (``bad agent name
'Password: Zq7mm'``) or hidden behind ``needs its session``.  One rule:
``objstore.core.redact.check_name``, run before any format message.  Real
``mem`` processes on real stores; every credential here is fake."""

from __future__ import annotations

import os

import pytest

ANT = "sk-ant-api03-" + "Qm9vZ1x7Tz3RkP0aLw9vN2cYd8Hf1JeUq4sX"
GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _files_holding(root, secret: str) -> list[str]:
    out = []
    for d, _dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                if secret.encode() in fh.read():
                    out.append(p)
    return out


@pytest.mark.parametrize("args, field, secret", [
    (["--session", ANT], "session", ANT),
    (["--session", f"s1.agent-{GHP}"], "session", GHP),
    ([f"project/api/{ANT}"], "key", ANT),
    ([f"project/api/{ANT}@v1"], "key", ANT),
    (["project/api/Password: Zq7mm"], "key", "Zq7mm"),
])
def test_forget_refuses_a_name_holding_a_credential_without_echoing_it(mem, store_path, args, field, secret):
    mem("remember", "project/api/k1", "kept", "--session", "s1")
    r = mem("forget", *args, "--yes", exit_code=2)
    assert f"the {field} holds a credential" in r.stderr, r.stderr
    assert secret not in r.stdout + r.stderr
    assert _files_holding(store_path, secret) == []
    assert mem("get", "project/api/k1").stdout.strip() == "kept"


def test_forget_still_takes_a_plain_session_and_match_text(mem):
    mem("remember", "project/api/k1", f"token {GHP}", "--session", "s1")
    r = mem("forget", "--session", "s1", "--dry-run", exit_code=4)   # a plain id: looked up as before
    assert "no session s1" in r.stderr, r.stderr
    mem("forget", "--match", GHP, "--dry-run")              # --match is text, never stored: taken


@pytest.mark.parametrize("args, field", [
    (["--session", "s1", "--agent", "Password: Zq7mm"], "agent"),
    (["--agent", "Password: Zq7mm"], "agent"),              # no session: not hidden by "needs its session"
    (["--session", "Password: Zq7mm "], "session"),         # white space at the end: a format error
    (["--session", "s1", "--agent", f"x/{GHP}"], "agent"),
])
def test_remember_refuses_a_bad_name_holding_a_credential_as_such(mem, store_path, args, field):
    r = mem("remember", "project/api/k1", "v", *args, exit_code=2)
    assert f"the {field} holds a credential" in r.stderr, r.stderr
    assert "Zq7mm" not in r.stdout + r.stderr and GHP not in r.stdout + r.stderr
    assert _files_holding(store_path, "Zq7mm") == [] and _files_holding(store_path, GHP) == []


def test_a_bad_key_holding_a_credential_is_refused_as_such(mem):
    r = mem("remember", "project/api/Password: Zq7mm@x", "v", exit_code=2)   # '@': a format error
    assert "the key holds a credential" in r.stderr and "Zq7mm" not in r.stderr, r.stderr


def test_a_bad_name_without_a_credential_keeps_its_format_message(mem):
    r = mem("remember", "project/api/k1", "v", "--session", "s1", "--agent", "bad name", exit_code=2)
    assert "bad agent name 'bad name'" in r.stderr, r.stderr
