"""Vendor token formats that reached the store in clear until session 16
(tester finding F9): HashiCorp Vault (``hvs.``/``hvb.``/``hvr.``, and the
legacy ``s.`` after ``vault login`` / ``VAULT_TOKEN`` / ``X-Vault-Token``),
Databricks (``dapi`` + 32 hex), Telegram bot tokens (``<id>:AA…``), Linear
(``lin_api_``), Atlassian (``ATATT3…``), Discord bot tokens (three base64url
parts, where the text names Discord or in ``Authorization: Bot``) and Mailgun
(``key-`` + 32 hex).  Each is redacted by its rule on every capture path
(``mem remember``, the prompt hook, the shell hook, ``mem import``) and
refused in a name (``check_name``); redacting twice changes nothing, and the
look-alikes stay as typed.  Every value here is fake."""

from __future__ import annotations

import subprocess
import sys

import pytest

from objstore.core.errors import InvalidInput
from objstore.core.redact import check_name, name_hits
from tests.cmds._credentials import (assert_none_stored, assert_scan_finds_nothing, check_kept, check_redacted,
                                     import_cases, run_prompt_hooks, run_shell_hook)
from tests.hooks._util import REPO, hook_env

VAULT_HVS = "hvs.CAESIFAKEkqkXyZ9q3VmN8wPpLrT2sYdHcJbGe7uMoAiQGh4KHGh2cy5GQUtFbXBxUjd0WnlMc0JvUWpYdg"
VAULT_HVB = "hvb.AAAAAQJFAKEr2-Vq7kLmZ8pN3sTwXyB9dC4eHgJ6uKoPqRsTvWxYz0aBcDeFgHiJkLmNoPq1r2s3t4u5v6w7x8y9z"
VAULT_S = "s.FAKEdEfGhIjKlMnOpQrStUv9"
DATABRICKS = "dapi0f1e2d3c4b5a69788796a5b4c3d2e1f0"
TELEGRAM = "AAHdqTcvFAKExGWJxfSeofSAs0K5PALDsaw"       # after "123456789:"; the bot id is kept
LINEAR = "lin_api_FAKE7xQ2mN9pL4kR8sT1vW6yZ3bC5dE0gH2jKm4n"
ATLASSIAN = ("ATATT3xFfGF0FAKEq9Lm2Np7Rs4Tv8Wx1Yz6Ab3Cd5Ef0Gh2Ij9Kl4Mn7Op1Qr3St6Uv8Wx0Yz5Ab2Cd7Ef9Gh1Ij4Kl6Mn3Op8Qr0St"
             "2Uv5Wx7Yz9Ab1Cd3Ef6Gh8Ij0Kl2Mn4Op7Qr9St1Uv3Wx5Yz8Ab0Cd2Ef4Gh7Ij9Kl1Mn3Op6Qr8St0Uv2Wx4Yz7Ab9C=4F2A1B3C")
DISCORD = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GFAKEe.q9Lm2Np7Rs4Tv8Wx1Yz6Ab3Cd5Ef0Gh2Ij9K"
MAILGUN = "key-0f9e8d7c6b5a49382716a5b4c3d2e1f0"

# (text, the secret that must disappear, the rule expected to name it)
CASES = [
    (f"vault login {VAULT_HVS}", VAULT_HVS, "vault-token"),
    (f"export VAULT_TOKEN={VAULT_HVB}", VAULT_HVB, "vault-token"),
    (f"vault login {VAULT_S}", VAULT_S, "vault-token"),
    (f"vault login -method=token -no-print {VAULT_S}", VAULT_S, "vault-token"),
    (f"export VAULT_TOKEN={VAULT_S}", VAULT_S, "vault-token"),
    (f"curl -H 'X-Vault-Token: {VAULT_S}' https://vault.internal:8200/v1/secret/data/app", VAULT_S, "vault-token"),
    (f"DATABRICKS_TOKEN={DATABRICKS} databricks clusters list", DATABRICKS, "databricks-token"),
    (f"databricks configure --token  # then paste {DATABRICKS}", DATABRICKS, "databricks-token"),
    (f"curl https://api.telegram.org/bot123456789:{TELEGRAM}/getMe", TELEGRAM, "telegram-bot-token"),
    (f"the bot token is 123456789:{TELEGRAM}", TELEGRAM, "telegram-bot-token"),
    (f"curl -H 'Authorization: {LINEAR}' https://api.linear.app/graphql", LINEAR, "linear-api-key"),
    (f"export LINEAR_API_KEY={LINEAR}", LINEAR, "linear-api-key"),
    (f"curl -u dev@example.com:{ATLASSIAN} https://acme.atlassian.net/rest/api/3/myself", ATLASSIAN,
     "atlassian-api-token"),
    (f"JIRA_API_TOKEN={ATLASSIAN}", ATLASSIAN, "atlassian-api-token"),
    (f"import discord\nclient.run('{DISCORD}')", DISCORD, "discord-bot-token"),
    (f"curl -H 'Authorization: Bot {DISCORD}' https://discord.com/api/v10/users/@me", DISCORD,
     "discord-bot-token"),
    (f"DISCORD_BOT_TOKEN={DISCORD}", DISCORD, "discord-bot-token"),
    (f"curl -s --user 'api:{MAILGUN}' https://api.mailgun.net/v3/mg.example.com/messages", MAILGUN, "mailgun-key"),
    (f"MAILGUN_API_KEY={MAILGUN}", MAILGUN, "mailgun-key"),
]

LOOKALIKES = [
    "hvs.example_module_name_in_a_path; hvs.; vault login -method=userpass username=dev; vault login",
    "the s.AbCdEfGhIjKlMnOpQrStUvWx attribute; s.replace(a, b); VAULT_TOKEN=$VAULT_TOKEN",
    "dapi is a typo for api; dapi_client.list(); the dapi prefix",
    "at 12:34:56 AAA; ratio 16:9; id 123456789:AAH too short",
    "lin_api_client.py; lin_api_ prefix; the ATATT3 prefix; ATATT3xFf",
    "version 1.2.3; MTIzNDU2.Nzg5MD.EyMzQ1; a.b.c; the bot token goes in .env",
    "cache-key-5d41402abc4b2a76b9719d911017c592; key-value store; primary key-1",
]


@pytest.mark.parametrize("text,secret,rule", CASES)
def test_the_token_is_redacted_by_its_rule(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_are_kept(text):
    check_kept(text)


NAMES = [f"project/x/{VAULT_HVS}", f"project/x/{VAULT_HVB}", f"VAULT_TOKEN={VAULT_S}", f"project/x/{DATABRICKS}",
         f"project/x/123456789:{TELEGRAM}", f"project/x/{LINEAR}", f"project/x/{ATLASSIAN}",
         f"project/discord/{DISCORD}", f"project/x/{MAILGUN}"]


@pytest.mark.parametrize("name", NAMES)
def test_a_name_holding_the_token_is_refused(name):
    # the name rule reads the same rules: a key or a session id holding one is refused, never echoed
    assert name_hits(name)
    with pytest.raises(InvalidInput) as e:
        check_name(name)
    assert name.rsplit("/", 1)[-1] not in str(e.value) + str(e.value.hint or "")


def _mem(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=120)


def test_remember_stores_none_of_them(tmp_path):
    # the tester's reproduction: mem remember project/x/t "<value>"; mem get project/x/t
    env = hook_env(tmp_path / "store")
    for i, (text, secret, rule) in enumerate(CASES[::3]):
        p = _mem(env, "remember", f"project/x/t{i}", text)
        assert p.returncode == 0 and secret not in p.stdout + p.stderr, p.stdout + p.stderr
        g = _mem(env, "get", f"project/x/t{i}")
        assert g.returncode == 0 and secret not in g.stdout and f"[REDACTED:{rule}]" in g.stdout, g.stdout
    assert_scan_finds_nothing(env, VAULT_HVS, "--no-remotes")


def test_the_prompt_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    batches = ["\n".join(t for t, _s, _r in CASES[i::3]) for i in range(3)] + ["\n".join(LOOKALIKES)]
    run_prompt_hooks(store, env, "F9", [f"{text}\n#{i}" for i, text in enumerate(batches)])
    assert_none_stored(store, CASES, LOOKALIKES)


def test_the_shell_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    batches = ["\n".join(t for t, _s, _r in CASES[i::3]) for i in range(3)] + ["\n".join(LOOKALIKES)]
    for i, text in enumerate(batches):
        run_shell_hook(env, "shell-f9", i, text)
    assert_none_stored(store, CASES, LOOKALIKES)


def test_a_transcript_import_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    import_cases(tmp_path / "t.jsonl", env, CASES, LOOKALIKES, "2026-01-16")
    assert_none_stored(store, CASES, LOOKALIKES)


# tester F10: a token right after an escape or a '_' (a word character before its prefix), or with a
# '_' glued after it, was kept: escaped text (code, URLs, JSON) puts one there
GH = "ghp_FAKEw2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJk"
AKID = "AKIAFAKEODNN7EXAMPLE"
ESCAPED = [
    (f'print("line\\n{GH}")', GH, "github-token"),
    (f"b'\\x00{AKID}'", AKID, "aws-access-key-id"),
    (f'curl "https://x/?a=1%0A{GH}"', GH, "github-token"),
    (f"token%3D{GH}", GH, "github-token"),
    (f"\\u0022{GH}", GH, "github-token"),
    (f"GITHUB_TOKEN_{GH}", GH, "github-token"),
    (f"key_{AKID}", AKID, "aws-access-key-id"),
    ("token_sk-ant-api03-FAKEefghijklmnopqrstuvwxyz0123456789AB", "sk-ant-api03-FAKEefghijklmnopqrstuvwxyz0123456789AB",
     "anthropic-key"),
    (f"{GH}_backup.txt", GH, "github-token"),
    (f"cat\\t{DATABRICKS}", DATABRICKS, "databricks-token"),
]
# still kept: a prefix inside a word or after a dash, a token glued to more token characters (red17: an AWS key
# id or a GitHub token glued to the letters before it, 'xAKIA…', is now redacted: tests/cmds/test_red17_redaction.py)
ESCAPED_LOOKALIKES = ["cache-key-5d41402abc4b2a76b9719d911017c592", "hf_hub_download; my_hf_home",
                      "AKIAFAKEODNN7EXAMPLEX; AKIAFAKEODNN7EXAMPLE2; the-ghp_ prefix"]


@pytest.mark.parametrize("text,secret,rule", ESCAPED)
def test_a_token_after_an_escape_or_an_underscore_is_redacted(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text", ESCAPED_LOOKALIKES)
def test_a_prefix_inside_a_word_is_still_kept(text):
    check_kept(text)


def test_names_gluing_a_token_after_an_underscore_are_refused(tmp_path):
    for name in (f"sess_{GH}", f"project/x/tok_{AKID}", f"s_{AKID}"):
        assert name_hits(name), name
    env = hook_env(tmp_path / "store")
    p = _mem(env, "remember", "project/x/k", "v", "--session", f"sess_{GH}")
    assert p.returncode == 2 and GH not in p.stdout + p.stderr, p.stdout + p.stderr
    p = _mem(env, "remember", f"project/x/tok_{AKID}", "v")
    assert p.returncode == 2 and AKID not in p.stdout + p.stderr, p.stdout + p.stderr
    for i, (text, secret, rule) in enumerate(ESCAPED[:4]):
        p = _mem(env, "remember", f"project/x/e{i}", text)
        g = _mem(env, "get", f"project/x/e{i}")
        assert p.returncode == 0 and secret not in g.stdout and f"[REDACTED:{rule}]" in g.stdout, g.stdout
