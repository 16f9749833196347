"""test17 T17: ``mem unseal`` of a sealed value holding a credential wrote it
back as a plain, indexed, injected, pushable fact with no warning, while
every other writer redacts such a text and says so.  Now unseal refuses
(exit 6, nothing changed), naming how many versions and which rules, never
the value; ``--redact-credentials`` restores them redacted (and the sealed
copy is gone, so no byte of the token stays after gc); ``--keep-credentials``
restores them in the clear and says so.  Real ``mem`` processes on a real
store (vault at a low work factor: tests/vault/conftest.py)."""

from __future__ import annotations

from objstore import scan_store

from tests.conftest import fact_chain

TOKEN = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
KEY = "project/b/gh"


def _sealed_three(mem) -> None:
    mem("remember", KEY, "no token yet", "--sensitivity", "secret")
    mem("remember", KEY, f"token {TOKEN}", "--sensitivity", "secret")
    mem("remember", KEY, f"rotated: {TOKEN[:-4]}ZZZZ and {TOKEN}", "--sensitivity", "secret")


def test_unseal_refuses_a_credential_without_showing_it(vstore, store_path, mem, pwfile):
    _sealed_three(mem)
    r = mem("unseal", KEY, "--passphrase-file", str(pwfile), exit_code=6)
    assert "2 of 3 versions" in r.stderr and "github-token x3" in r.stderr
    assert "--redact-credentials" in r.stderr and "--keep-credentials" in r.stderr
    assert "Q9w2" not in r.stdout + r.stderr
    assert fact_chain(store_path, KEY) == []                     # nothing changed: still sealed only
    assert mem("sealed", "show", KEY, "--passphrase-file", str(pwfile)).stdout.endswith(f"{TOKEN}\n")
    j = mem("unseal", KEY, "--passphrase-file", str(pwfile), "--json", exit_code=6)
    assert "Q9w2" not in j.stdout + j.stderr
    mem("unseal", KEY, "--passphrase-file", str(pwfile), "--keep-credentials", "--redact-credentials",
        exit_code=2)


def test_unseal_redact_credentials_leaves_no_byte_of_the_token(vstore, store_path, mem, pwfile):
    _sealed_three(mem)
    r = mem("unseal", KEY, "--passphrase-file", str(pwfile), "--redact-credentials", "--json")
    assert r.json["credentials"] == {"versions": [2, 3], "rules": {"github-token": 3}, "redacted": True}
    assert "2 restored versions (v2, v3) held a credential (github-token x3)" in r.stderr
    assert "Q9w2" not in r.stdout + r.stderr
    assert fact_chain(store_path, KEY) == [(3, False, "rotated: [REDACTED:github-token] and [REDACTED:github-token]"),
                                           (2, False, "token [REDACTED:github-token]"), (1, False, "no token yet")]
    assert mem("search", "token", "--json").json[0]["key"] == KEY
    mem("gc", "--prune=now")
    assert scan_store(store_path, [b"Q9w2E3r4T5y6"]) == []       # not in any object, pack, index or log


def test_unseal_keep_credentials_restores_them_and_warns(vstore, store_path, mem, pwfile):
    mem("remember", "user/wifi/guest", "the guest network is homenet-5g", "--sensitivity", "secret")
    r = mem("unseal", "user/wifi/guest", "--passphrase-file", str(pwfile))   # no credential: no word of it
    assert r.stderr == "" and "1 version restored" in r.stdout
    assert mem("get", "user/wifi/guest").stdout == "the guest network is homenet-5g\n"
    _sealed_three(mem)
    r = mem("unseal", KEY, "--passphrase-file", str(pwfile), "--keep-credentials")
    assert "warning: 2 restored versions (v2, v3) held a credential (github-token x3): stored in the clear" \
        in r.stderr and "Q9w2" not in r.stderr
    assert mem("get", KEY).stdout == f"rotated: {TOKEN[:-4]}ZZZZ and {TOKEN}\n"

