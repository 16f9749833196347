"""red34c (test34 T10): a settings name ending ``_KEY``/``-key``/``_AUTH`` (``ALGOLIA_ADMIN_KEY``,
``SEGMENT_WRITE_KEY``, ``NEW_RELIC_LICENSE_KEY``, ``HMAC_KEY``, ``WEBHOOK_KEY``, ``REDIS_AUTH``…) whose value is a
random hex or base64 key is a secret; names of ids and public keys, and values that are no random key, are kept.
Every secret is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact, redact_named
from objstore.core.redact.keysuffix import key_value_ok
from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

HEX = "a5753088af80920eb62995dcafbe6b7a"      # the finding's shape: 32 random hex
B64 = "Zq7mm9xQ3vL8kR2pT5wNc4Hy"               # 24 base64 characters, letters and digits mixed
#: the names test34 T10 saw kept in the clear
NAMES = ["ALGOLIA_ADMIN_KEY", "SEGMENT_WRITE_KEY", "NEW_RELIC_LICENSE_KEY", "SUPABASE_SERVICE_KEY", "HMAC_KEY",
         "WEBHOOK_KEY", "CLIENT_KEY", "DB_KEY", "REDIS_AUTH"]
#: case -> (what stays before the secret, the secret, what stays after it)
CASES = {
    **{n.lower(): (f"{n}=", HEX, "") for n in NAMES},
    "yaml-quoted": ("hmac_key: '", B64, "'"),
    "json": ('{"webhook_key": "', B64, '"}'),
    "dash-flag": ("--client-key=", B64, ""),
    "export-sentence": ("export HMAC_KEY=", HEX, "."),
    "read-tool-line": ("     7\u2192ALGOLIA_ADMIN_KEY=", HEX, ""),
}
#: names of ids, of public keys, and values that are no random key
KEPT = [
    "PRIMARY_KEY=id", "SORT_KEY=created_at", "CACHE_KEY_PREFIX=app:", "FOREIGN_KEY=user_id", "KEY=value",
    "Set KEY=value in the prose", "REDIS_KEY=user:1234:sessions", "SSH_KEY=~/.ssh/id_rsa", "USE_AUTH=true",
    "WEBHOOK_KEY=changeme", "DB_KEY=your_db_key_here", "HMAC_KEY=${HMAC_KEY}", "CLIENT_KEY=deadbeefdeadbeef",
    # public by design: Stripe's publishable key, a public key's base64, reCAPTCHA's site key, an OpenPGP key id
    "STRIPE_PUBLISHABLE_KEY=pk_live_51H8aZqLkT3mN9pQ2rS4vW6xY8zA1bC3dE5fG7hJ9",
    "PUBLIC_KEY=MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE", "VAPID_PUBLIC_KEY=BEl62iUYgUivxIkv69yViEuiBIa40HI80NM9f4",
    "RECAPTCHA_SITE_KEY=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI", "GPG_KEY=3AA5C34371567BD2",
    # ids: a UUID, an idempotency key, an object's path
    "ROW_KEY=550e8400-e29b-41d4-a716-446655440000", "IDEMPOTENCY_KEY=550e8400e29b41d4a716446655440000",
    "S3_KEY=uploads/2024/3f9a8b7c6d5e4f3a2b1c", "S3_KEY=uploads/3f9a8b7c6d5e4f3a2b1c.png",
    # code: a call or an index after the name (cryptography's own source)
    "private_key = MLDSA44Ed25519PrivateKey(", "signing_key = KeyTable2024xYz9Abc[0]",
    # too short to be a key
    "DB_KEY=a1b2c3d4e5",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_key_named_by_its_use_is_redacted(case):
    head, secret, tail = CASES[case]
    assert_redacted(case, head + secret + tail, [secret], kept=[head, tail], rule="generic-secret")


@pytest.mark.parametrize("text", KEPT)
def test_ids_public_keys_and_non_keys_are_kept(text):
    assert_kept(text)


def test_the_finding_env_file_keeps_no_value_and_every_name():
    """test34 T10's ``.env``, whole: every value of a secret's name goes, the names and the host stay."""
    env = "\n".join(f"{n}={HEX[i:] + HEX[:i]}" for i, n in enumerate(NAMES)) + "\nDB_HOST=db9.internal\n"
    out = redact(env).text
    assert HEX[:12] not in out and "DB_HOST=db9.internal" in out, out
    for n in NAMES:
        assert f"{n}=[REDACTED:generic-secret]" in out, out


def test_key_value_ok_reads_the_value_alone():
    assert key_value_ok(HEX) and key_value_ok(B64)
    for v in ("created_at_2024", "550e8400-e29b-41d4-a716-446655440000", "uploads/2024/3f9a8b7c6d5e4f3a2b1c",
              "a1b2c3d4e5", "deadbeefdeadbeef", "stored in the vault k8s"):
        assert not key_value_ok(v), v


def test_no_key_reaches_a_store_by_remember_or_import(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and a real ``mem import`` of a Claude Code transcript whose tool results
    are the ``.env`` lines: no value in ``mem get``, the session shown or any file of the store (packs
    decompressed); a kept name of an id comes back as written."""
    mem("remember", "project/red34c/hmac-key", HEX)
    out = mem("get", "project/red34c/hmac-key").stdout
    assert HEX not in out and "[REDACTED:named-secret]" in out, out
    one = {n.lower(): (f"{n}={HEX}", HEX, f"{n}=") for n in NAMES}   # name -> (text, secret, kept part)
    check_remembered_and_imported(mem, tmp_path, "red34c", "34c34c34-aaaa-4aaa-8aaa-34c34c34c34c", one,
                                  sorted(one), "SORT_KEY=created_at", store=store_path)


@pytest.mark.parametrize("key", ["project/acme/hmac-key", "project/acme/algolia_admin_key", "project/acme/redis-auth"])
def test_a_random_key_under_a_fact_key_named_so_is_redacted_whole(key):
    res = redact_named(f" {HEX}\n", key)
    assert res.text == " [REDACTED:named-secret]\n", res.text


@pytest.mark.parametrize("key, value", [("project/acme/cache-key", HEX), ("project/acme/public-key", B64),
                                        ("project/acme/hmac-key", "stored in the vault"), ("project/acme/key", HEX),
                                        ("project/acme/sort-key", "created_at"), ("project/acme/row-key", "user_id")])
def test_other_values_under_key_names_are_kept(key, value):
    assert redact_named(value, key).text == value
