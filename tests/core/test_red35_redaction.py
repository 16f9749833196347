"""red35: test34b T7 (an ``_AUTH`` setting holding ``user:password``, an
``ADMIN_KEY`` holding a word-like password) and T8 (prompt wording that
slipped past the password rules: a Greek or Armenian look-alike letter in
the label, a passphrase after ``pw:`` or ``pwd is`` followed by the
prompt's next clause, "is just X" / "is simply X", "use X as the db
password")."""

from __future__ import annotations

import subprocess
import sys

import pytest

from objstore.core.redact import redact
from tests.conftest import REPO
from tests.core._redaction_util import assert_redacted
from tests.hooks._util import hook_env

_NEXT = " - please put it in the deploy config"

#: (text, secret, kept)
SECRETS = [
    ("BASIC_AUTH=admin:Pl8mKo3nJi", "Pl8mKo3nJi", "BASIC_AUTH=admin:"),
    ("PROXY_AUTH=user:Wq2eRt5yUi", "Wq2eRt5yUi", "PROXY_AUTH=user:"),
    ('export BASIC_AUTH="admin:Pl8mKo3nJi"', "Pl8mKo3nJi", "admin:"),
    ("basic_auth: admin:Pl8mKo3nJi", "Pl8mKo3nJi", "basic_auth: admin:"),
    ("ADMIN_KEY=hunter2hunter2", "hunter2hunter2", "ADMIN_KEY="),
    ('ADMIN_KEY: "hunter2hunter2"', "hunter2hunter2", "ADMIN_KEY"),
    ("admin passw\u03bfrd is Ht6yUj9kLo" + _NEXT, "Ht6yUj9kLo", "deploy config"),
    ("api t\u03bfken: Rm4tYu7iOp2f" + _NEXT, "Rm4tYu7iOp2f", "deploy config"),
    ("db passw\u0585rd: Rm4tYu7iOp2c" + _NEXT, "Rm4tYu7iOp2c", "deploy config"),
    ("pw: correct horse battery staple" + _NEXT, "horse battery", "deploy config"),
    ("the wifi pwd is purple monkey dishwasher" + _NEXT, "monkey dishwasher", "the wifi pwd is"),
    ("the wifi password is purple monkey dishwasher.", "monkey dishwasher", "the wifi password is"),
    ("my sudo password is just Kd8fJ3mXq" + _NEXT, "Kd8fJ3mXq", "is just"),
    ("the db password is simply Kd8fJ3mXq" + _NEXT, "Kd8fJ3mXq", "is simply"),
    ("use Kd8fJ3mXq as the db password" + _NEXT, "Kd8fJ3mXq", "as the db password"),
    ('Use "Kd8fJ3mXq!" as the wifi password', "Kd8fJ3mXq", "as the wifi password"),
]
#: kept as written: a URL, a host:port, a reference, a cache key, prose around the new wordings
KEPT = [
    "KEYCLOAK_AUTH=https://auth.example.com/realms/acme",
    "PROXY_AUTH=proxy.local:3128",
    "BASIC_AUTH=admin:$BASIC_PASS",
    "CACHE_KEY=user:{id}:profile",
    "the admin key is in 1password",
    "the password is just a placeholder" + _NEXT,
    "the password is simply too short" + _NEXT,
    "the pwd is set by the installer" + _NEXT,
    "use this as the password",
    "use it as your pw",
    "use ssh keys as the password alternative",
    "\u03ba\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 world, 5\u03bcs latency",
]


@pytest.mark.parametrize("text,secret,kept", SECRETS)
def test_the_wordings_are_redacted(text, secret, kept):
    assert_redacted(text, text, [secret], [kept])


@pytest.mark.parametrize("text", KEPT)
def test_the_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_mem_remember_replaces_an_auth_pair(tmp_path):
    """T7: ``mem remember KEY "BASIC_AUTH=admin:…"`` stored the password (no warning)."""
    env = hook_env(tmp_path / "store")
    run = [sys.executable, "-m", "cmds"]
    assert subprocess.run(run + ["init"], env=env, cwd=REPO, capture_output=True, timeout=120).returncode == 0
    p = subprocess.run(run + ["remember", "project/env/basic_auth", "BASIC_AUTH=admin:Pl8mKo3nJa"], env=env,
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "credential(s) in the value were replaced" in p.stderr, p
    got = subprocess.run(run + ["get", "project/env/basic_auth"], env=env, cwd=REPO, capture_output=True, text=True,
                         timeout=120).stdout
    assert "Pl8mKo3nJa" not in got and "BASIC_AUTH=admin:[REDACTED:" in got, got
