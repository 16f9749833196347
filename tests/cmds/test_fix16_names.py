"""Lane fix16, defects 4 and 5 (real ``mem`` processes; the secrets are fake).

4. A credential glued to letters inside a key name
   (``user/x/vAKIAIOSFODNN7EXAMPLE``) passed the name rule: a value rule
   starts a token where a word starts, and a name gives it no blank.  Such a
   key is refused (exit 2) without echo, as a standalone one is.
5. ``--project NAME`` (or ``$MEM_PROJECT``) holding a credential was echoed
   back ("nothing recalled in project AKIA…", ``recall --json``'s
   ``project``, ``context --json``).  It is refused, never shown."""

from __future__ import annotations

import pytest

GLUED = [
    ("v", "AKIAIOSFODNN7EXAMPLE"),
    ("v_", "AKIAIOSFODNN7EXAMPLE"),
    ("x", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    ("foo", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("asd", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"),
    ("a", "glpat-abcdefghij0123456789"),
    ("abc", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
]


@pytest.mark.parametrize("glue, secret", GLUED)
def test_a_credential_glued_to_letters_in_a_key_is_refused_unechoed(mem, store_path, glue, secret):
    mem("init")
    r = mem("remember", f"user/x/{glue}{secret}", "some value", exit_code=2)
    assert "the key holds a credential" in r.stderr, r.stderr
    assert secret[:8] not in r.stdout + r.stderr
    assert mem("remember", f"user/x/{glue}{secret}", "v", "--json", exit_code=2).stdout.count(secret[:8]) == 0
    for f in store_path.rglob("*"):
        if f.is_file():
            assert secret[:8].encode() not in f.read_bytes(), f


@pytest.mark.parametrize("key", ["user/editor/shopping-list", "project/api/keyring", "user/bypass/compass",
                                 "project/passkey/tokenizer", "global/ssh/pinning", "user/x/zipcode",
                                 "project/acme-api/database/connection-pool-size"])
def test_words_holding_an_anchor_are_still_keys(mem, store_path, key):
    mem("init")
    mem("remember", key, "v1")


SECRET = "AKIAIOSFODNN7EXAMPLE"


@pytest.mark.parametrize("args", [
    ["recall", "postgres", "--project", SECRET],
    ["recall", "postgres", "--project", SECRET, "--json"],
    ["recall", "postgres", "--project", "x" + SECRET],
    ["context", "--project", SECRET, "--json"],
    ["context", "--project", SECRET, "--prompt", "what port does postgres use", "--json"],
    ["context", "--project", SECRET, "--session", "s1", "--json"],
])
def test_a_project_holding_a_credential_is_never_echoed(mem, store_path, args):
    mem("init")
    mem("remember", "project/acme/db", "postgres 16 on port 5433")
    r = mem(*args, exit_code=2)
    assert "the project holds a credential" in r.stderr and SECRET[:8] not in r.stdout + r.stderr, r.stderr


def test_mem_project_holding_a_credential_is_never_echoed(mem, store_path):
    mem("init")
    r = mem("recall", "postgres", env={"MEM_PROJECT": SECRET}, exit_code=2)
    assert SECRET[:8] not in r.stdout + r.stderr, r.stderr
    assert "nothing recalled in project acme" in mem("recall", "nothing-here", "--project", "acme").stderr
