"""test38 T9.2: ``mem status --help`` said --plain prints records "id
first" under the text saying its records start with their kind.  T9.3: a
credential in a ``remotes.json`` field other than url/endpoint (written by
hand: ``{"url": ..., "aws_secret_access_key": ...}``) was never checked,
and ``mem remote add`` wrote it back; such an entry is damage now (exit
13), the field never named nor shown."""

from __future__ import annotations

import json


def test_status_help_says_its_plain_records_start_with_their_kind(invoke):
    out = invoke("status", "--help").stdout
    assert "its kind first" in out and "id first" not in out
    assert "id first" in invoke("keys", "--help").stdout   # the other --plain outputs keep theirs


def test_a_credential_in_another_remotes_json_field_is_damage_never_shown(invoke, store_path, tmp_path):
    invoke("remember", "user/x", "hello")
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    (store_path / "remotes.json").write_text(json.dumps(
        {"origin": {"url": str(tmp_path), "encrypt": False, "aws_secret_access_key": secret}}))
    (tmp_path / "rem").mkdir()   # (a folder beside the store: one holding it is refused first, fresh43 F14)
    for args in (("remote", "list"), ("status",), ("status", "--json"), ("remote", "add", "b", str(tmp_path / "rem"))):
        r = invoke(*args, exit_code=13)
        assert "remote 'origin' holds a field other than url, endpoint and encrypt" in r.stderr, (args, r.stderr)
        assert secret not in r.stdout + r.stderr and "aws_secret" not in r.stdout + r.stderr
    assert secret in (store_path / "remotes.json").read_text()   # nothing rewritten: the person takes it out
    (store_path / "remotes.json").write_text(json.dumps({"origin": {"url": str(tmp_path), "encrypt": False}}))
    assert "origin" in invoke("remote", "list").stdout
