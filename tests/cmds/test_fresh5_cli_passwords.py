"""Fresh attack 5, finding 2 (notes/fresh5-attack.md): passwords given to a
command on its command line (sshpass -p, docker/az login -p, curl -u
user:pw, redis-cli -a, openssl -k / -pass pass:, htpasswd -b, echo | sudo
-S, --password X), ``*_PASS=`` variables, ``the secret is X``, a quoted
passphrase, ``password X`` with no verb and a password holding ``&`` reached
the store whole. Each is now redacted before anything is written: through
the prompt hook and the shell hook (real ``mem`` processes), and by
:func:`redact` itself; look-alikes are kept."""

from __future__ import annotations

import pytest

from tests.cmds._credentials import (assert_none_stored, assert_scan_finds_nothing, check_kept, check_redacted,
                                     run_prompt_hooks, run_shell_hook, stored_texts)
from tests.hooks._util import hook_env

# (text, the secret that must disappear, the rule expected to name it)
CASES = [
    ("sshpass -p 'FakeSshpassPw11' ssh root@host", "FakeSshpassPw11", "cli-password"),
    ("sshpass -pFakeSshpassPw12 ssh root@host", "FakeSshpassPw12", "cli-password"),
    ("docker login -u me -p FakeDockerPw21 registry.io", "FakeDockerPw21", "cli-password"),
    ("podman login --password FakePodmanPw22 quay.io", "FakePodmanPw22", "cli-password"),
    ("curl -u admin:FakeCurlPw31 https://example.com/x", "FakeCurlPw31", "cli-password"),
    ("curl --user=admin:FakeCurlPw32 https://example.com/x", "FakeCurlPw32", "cli-password"),
    ("redis-cli -h db -a FakeRedisPw41 ping", "FakeRedisPw41", "cli-password"),
    ("az login -u x@y.z -p FakeAzurePw51", "FakeAzurePw51", "cli-password"),
    ("openssl enc -aes256 -k FakeOpensslPw61 -in a", "FakeOpensslPw61", "cli-password"),
    ("openssl rsa -passin pass:FakeOpensslPw62 -in k.pem", "FakeOpensslPw62", "cli-password"),
    ("htpasswd -b .htpasswd user FakeHtpasswdPw71", "FakeHtpasswdPw71", "cli-password"),
    ("htpasswd -nb user FakeHtpasswdPw72", "FakeHtpasswdPw72", "cli-password"),
    ("echo 'FakeSudoPw81' | sudo -S apt update", "FakeSudoPw81", "cli-password"),
    ("mytool --password FakeFlagPw91 --user bob", "FakeFlagPw91", "cli-password"),
    ("DB_PASS=FakeDbPass101 ./start", "FakeDbPass101", "generic-secret"),
    ("the secret is fake-s3cr3t-v4lue", "fake-s3cr3t-v4lue", "password-phrase"),
    ('the passphrase is "purple fake dishwasher"', "purple fake dishwasher", "password-phrase"),
    ("I'll use password FakeBarePw111 for it", "FakeBarePw111", "password-phrase"),
    ("my password: Tr0ub4dor&3fake", "&3fake", "generic-secret"),
]

LOOKALIKES = [
    "docker login --password-stdin -u me registry.io",
    "openssl enc -pass env:MYPW -in x; openssl rsa -passin file:pw.txt -in k.pem",
    "sshpass -p $SSHPASS ssh host; curl -u admin https://x; redis-cli -a \"$REDIS_PW\" ping",
    "see --password PASSWORD and --password <password> in the manual",
    "the token is expired; reset your password link; password reset2024 soon; the password is required",
    "make && ./run; a=1&b=2 FIRST_PASS=true BYPASS=1",
    "mkdir -p build && ssh -p 2222 host && docker run -p 8080:80 nginx",
]


@pytest.mark.parametrize("text,secret,rule", CASES)
def test_the_command_line_password_is_redacted(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_are_kept(text):
    check_kept(text)


def test_the_prompt_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    run_prompt_hooks(store, env, "F5", [f"run: {text} #{i}" for i, (text, _s, _r) in enumerate(CASES)])
    assert_none_stored(store, CASES)
    # and no file of the store holds one, in any encoding `mem scan` knows
    for _text, secret, _rule in CASES[:6]:
        assert_scan_finds_nothing(env, secret)


def test_the_shell_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    for i, (text, _secret, _rule) in enumerate(CASES[:14]):
        run_shell_hook(env, "shell-f5", i, text)
    texts = stored_texts(store)
    assert texts.count("[REDACTED:cli-password]") == 14, texts
    for _text, secret, _rule in CASES[:14]:
        assert secret not in texts
