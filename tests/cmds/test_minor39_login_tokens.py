"""test39 m7: a token given as a command's positional argument where the
command always takes a token (``vault login TOKEN``, of any shape, and
``npm config set //registry/:_authToken TOKEN``) was stored in the clear by
the shell capture (``mem hook shell``); the neighbours that were already
redacted (``docker login -p X``, ``VAULT_TOKEN=X``, ``…:_authToken=X``) stay
redacted, and a command reading the token from elsewhere, or prose, is kept.
Every value here is fake."""

from __future__ import annotations

import pytest

from tests.cmds._credentials import assert_none_stored, check_kept, check_redacted, run_shell_hook
from tests.hooks._util import hook_env

TOKEN = "Kx9mmQ2zzTokenValue1"

CASES = [
    (f"vault login {TOKEN}", TOKEN, "vault-token"),
    (f"vault login -method=token {TOKEN}", TOKEN, "vault-token"),
    (f"vault login -method token -no-print {TOKEN}", TOKEN, "vault-token"),
    (f"vault login '{TOKEN}'", TOKEN, "vault-token"),
    (f"npm config set //registry.npmjs.org/:_authToken {TOKEN}", TOKEN, "npm-token"),
    (f"npm set //npm.pkg.github.com/:_authToken \"{TOKEN}\"", TOKEN, "npm-token"),
]
#: already redacted on batch, by other rules: they stay so
NEIGHBOURS = [
    (f"VAULT_TOKEN={TOKEN} vault kv get secret/x", TOKEN),
    (f"docker login -u bob -p {TOKEN} registry.example.com", TOKEN),
    (f"npm config set //registry.npmjs.org/:_authToken={TOKEN}", TOKEN),
    (f"vault login -method=userpass username=bob password={TOKEN}", TOKEN),
]
KEPT = [
    "vault login -",
    "vault login $VAULT_TOKEN",
    "vault login -method=oidc",
    "vault login -method=userpass username=bob",
    "vault login <token>",
    "after vault login succeeded, read the secret",
    "npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}",
]


@pytest.mark.parametrize("text,secret,rule", CASES)
def test_the_login_token_is_redacted(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text,secret", NEIGHBOURS)
def test_the_neighbours_stay_redacted(text, secret):
    from objstore.core.redact import redact
    assert secret not in redact(text).text


@pytest.mark.parametrize("text", KEPT)
def test_lookalikes_are_kept(text):
    check_kept(text)


def test_the_shell_hook_stores_none_of_them(tmp_path):
    # the tester's reproduction: mem hook shell -- 'vault login Kx9mmQ2zzTokenValue1'
    store = tmp_path / "store"
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    for i, (text, _s, _r) in enumerate(CASES):
        run_shell_hook(env, "shell-m7", i, text)
    run_shell_hook(env, "shell-m7", len(CASES), "\n".join(KEPT))
    assert_none_stored(store, CASES, KEPT)
