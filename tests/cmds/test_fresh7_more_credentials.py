"""Credential forms that still reached the store in clear after session 6:
Hugging Face tokens (``hf_…``), SendGrid keys (``SG.x.y``), Azure storage
account keys and SAS signatures (``AccountKey=…``, ``sig=…``), Discord
webhook URLs, DigitalOcean (``dop_v1_…``) and Shopify (``shpat_``/``shpss_…``)
tokens, Rails' ``SECRET_KEY_BASE=…``, ``passphrase: <words>``, ``the vpn pass
is X``, German ``Passwort: X`` / ``das Passwort ist X``, and ``login
admin/Pw`` with no blanks. Each is now redacted by its rule on every capture
path (the prompt hook and ``mem import``), redacting twice changes nothing,
and the look-alikes stay as typed. Every value here is fake."""

from __future__ import annotations

import pytest

from tests.cmds._credentials import assert_none_stored, check_kept, check_redacted, import_cases, run_prompt_hooks
from tests.hooks._util import hook_env

HF = "hf_FAKEujzPdeIgxLdGncfBAepfJBdKhoOOLd"
SENDGRID = "SG.FAKEA-2O76UMFxFkM-R5Kj.FAKEp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-hBKqFYY-"
AZURE_KEY = "FAKEkv5ZJr3J1TWDtkwtDDb+xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po+799NksnRH9ucAUsdMl=="
SB_KEY = "FAKEHUvTCQCyEZDz/TddJ8HyS5SUkCnD8zRA9a9SkpX="
SAS_SIG = "FAKEYTWmE4lBYOvfZ8UzDzV8fUkkibjL5DZPjN0M%2BEQ7%3D"
DISCORD = "FAKEStqcbnr3yBdGBLEPH1qhT61qtc4xatws8phP9nhFyJfm5di4PzJ59FHz5r1pY4Oj"
DO_PAT = "dop_v1_7d26934b484e73cf575dcad6ba2b0aee0ca923732881584d8c4fa2815d280282"
DO_OAUTH = "doo_v1_7283e0ad84173581569969e58b081006f7e3dfc967a64cb14028d512c9791e55"
SHOPIFY = "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"
SHOPIFY_SS = "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"
RAILS = ("f828767efc2f91624a8940f1f836f99eee3692f09e2e8c662248b483b7ffc050"
         "fec94dbca3a0aac36098b2cc2bd818319478da6bd0c621de49f145fda9988c79")

# (text, the secret that must disappear, the rule expected to name it)
CASES = [
    (f"export HF_TOKEN={HF}", HF, "huggingface-token"),
    (f"huggingface-cli login --token {HF}", HF, "huggingface-token"),
    (f"SENDGRID_API_KEY={SENDGRID}", SENDGRID, "sendgrid-key"),
    (f"curl -H 'Authorization: Bearer {SENDGRID}' https://api.sendgrid.com/v3/mail/send", SENDGRID,
     "sendgrid-key"),
    (f"DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net",
     AZURE_KEY, "azure-storage-key"),
    (f"Endpoint=sb://fake.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={SB_KEY}", SB_KEY,
     "azure-storage-key"),
    (f"az storage blob list -c media --account-name fakeacct --account-key {AZURE_KEY}", AZURE_KEY,
     "azure-storage-key"),
    (f"AZURE_STORAGE_KEY={AZURE_KEY}", AZURE_KEY, "azure-storage-key"),
    (f"https://fakeacct.blob.core.windows.net/media/a.png?sv=2022-11-02&ss=b&srt=o&sp=r"
     f"&se=2030-01-01T00:00:00Z&spr=https&sig={SAS_SIG}", SAS_SIG, "azure-sas-token"),
    (f"SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl&sig={SAS_SIG}", SAS_SIG, "azure-sas-token"),
    (f"https://discord.com/api/webhooks/123456789012345678/{DISCORD}", DISCORD, "discord-webhook"),
    # fresh7-attack F5: a host or a parameter name in upper case
    (f"curl -X POST HTTPS://DISCORD.COM/API/WEBHOOKS/123456789012345678/{DISCORD}", DISCORD, "discord-webhook"),
    (f"https://acct.blob.core.windows.net/c/b?sv=2022-11-02&SIG={SAS_SIG}&se=x", SAS_SIG, "azure-sas-token"),
    (f"curl -X POST https://canary.discordapp.com/api/v10/webhooks/987654321098765432/{DISCORD} -d @msg.json",
     DISCORD, "discord-webhook"),
    (f"doctl auth init -t {DO_PAT}", DO_PAT, "digitalocean-token"),
    (f"DIGITALOCEAN_OAUTH={DO_OAUTH}", DO_OAUTH, "digitalocean-token"),
    (f"X-Shopify-Access-Token: {SHOPIFY}", SHOPIFY, "shopify-token"),
    (f"SHOPIFY_API_SECRET={SHOPIFY_SS}", SHOPIFY_SS, "shopify-token"),
    (f"SECRET_KEY_BASE={RAILS} bin/rails server", RAILS, "generic-secret"),
    (f"  secret_key_base: {RAILS}", RAILS, "generic-secret"),
    ("gpg passphrase: correct horse battery staple", "correct horse battery staple", "password-phrase"),
    # a value alone on its line after a password label is a password whatever its shape (red9): the
    # generic-secret rule names it first
    ("passphrase=correct-horse-battery-staple", "correct-horse-battery-staple", "generic-secret"),
    # fresh7-attack F5: a sentence's end, and a bare 'pass' key
    ("and the passphrase: orange zebra quantum lamp.", "orange zebra quantum lamp", "password-phrase"),
    ("vpn creds: user: admin pass: Pw!2024xQ", "Pw!2024xQ", "generic-secret"),
    ("user=admin pass=Qw3rty!99z", "Qw3rty!99z", "generic-secret"),
    ("export PASS=Zx9!long7pw", "Zx9!long7pw", "generic-secret"),
    ("the vpn pass is Vpn2024fake!x", "Vpn2024fake!x", "password-phrase"),
    ("wifi pass is KX9rrFAKE22", "KX9rrFAKE22", "password-phrase"),
    ("Passwort: Geheim2024fake!", "Geheim2024fake!", "generic-secret"),
    ("passwort=geheimfake123", "geheimfake123", "generic-secret"),
    ("das Passwort ist GeheimFake2024", "GeheimFake2024", "password-phrase"),
    ("das Passwort lautet Sommer2024fake!", "Sommer2024fake!", "password-phrase"),
    ("login admin/Pw!2024fake", "Pw!2024fake", "password-phrase"),
    ("log in with deploy/Secret123fake on the dashboard", "Secret123fake", "password-phrase"),
    ("creds: admin/hunter2fake9", "hunter2fake9", "password-phrase"),
]

LOOKALIKES = [
    "from huggingface_hub import hf_hub_download; hf_token = os.environ['HF_TOKEN']; hf_api.whoami()",
    "hf_abcdefghijklmnopqrstuvwxyzabcdefgh is a snake_case name; hf_transfer; HF_HOME=~/.cache/hf",
    "SG.example.com; SG.get_value(); the SG. prefix; SG.ab.cd",
    "AccountKey=$AZURE_STORAGE_KEY; AccountKey=<key>; --account-key \"$KEY\"; AZURE_STORAGE_KEY=${KEY}",
    "def verify(sig=None): return inspect.signature(f); url?sig=abc; &sig=$SAS_SIG&sv=1",
    "https://discord.com/api/webhooks/{webhook.id}/{webhook.token}; https://discord.com/channels/123/456",
    "doctl auth init; dop_v1_ prefix; shpat_ and shpss_ prefixes; shopify_api_version=2024-01",
    "SECRET_KEY_BASE=$(bin/rails secret); secret_key_base: <%= ENV['SECRET_KEY_BASE'] %>",
    "passphrase: not set; passphrase: see the vault entry; passphrase: required for signing",
    "pass=true; PASS=1; --- PASS: TestFoo (0.00s); pass: 3 tests; bypass=Pw!2024x; passphrase: see the docs.",
    "the second pass is 2x faster; the lint pass is over-eager; the boarding pass is attached",
    "das Passwort ist im Tresor gespeichert; Passwort: ********; passwort=None",
    "login users/groups.py; the login/logout flow; login api/v2/session; cred helper/store; login page/route2",
]


@pytest.mark.parametrize("text,secret,rule", CASES)
def test_the_credential_is_redacted_by_its_rule(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_are_kept(text):
    check_kept(text)


def test_the_prompt_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    batches = ["\n".join(t for t, _s, _r in CASES[i::3]) for i in range(3)] + ["\n".join(LOOKALIKES)]
    run_prompt_hooks(store, env, "F7", [f"{text}\n#{i}" for i, text in enumerate(batches)])
    assert_none_stored(store, CASES, LOOKALIKES)


def test_a_transcript_import_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    import_cases(tmp_path / "t.jsonl", env, CASES, LOOKALIKES, "2026-01-06")
    assert_none_stored(store, CASES, LOOKALIKES)
