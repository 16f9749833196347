"""remember / get / log / show / keys / cat-object through the CLI: output, exit codes, stderr."""

from __future__ import annotations

import json

from objstore.core.ids import hash_bytes


def test_acceptance_remember_twice(invoke, store_path):
    invoke("remember", "project/x/db", "postgres 15")
    invoke("remember", "project/x/db", "postgres 16")
    r = invoke("remember", "project/x/db", "postgres 16")
    assert r.stdout.startswith("unchanged:")
    assert invoke("get", "project/x/db").stdout == "postgres 16\n"
    log = invoke("log", "project/x/db", "--json").json
    assert [v["version"] for v in log] == [2, 1]
    assert [v["body"] for v in log] == ["postgres 16", "postgres 15"]
    assert log[0]["current"] and not log[1]["current"]
    assert log[0]["parent"] == log[1]["id"]
    objects_before = sorted(p.name for p in (store_path / "objects").rglob("*") if p.is_file())
    bad = invoke("remember", "project/x/db", "postgres 17", "--expect", "0000", exit_code=5)
    assert bad.stdout == ""
    assert bad.stderr.startswith("Error: ref facts/project/x/db is at ")
    assert "hint:" in bad.stderr
    assert sorted(p.name for p in (store_path / "objects").rglob("*") if p.is_file()) == objects_before
    assert invoke("get", "project/x/db").stdout == "postgres 16\n"
    invoke("remember", "project/x/db", "postgres 17", "--expect", log[0]["id"])
    assert invoke("fsck").stdout.startswith("ok:")


def test_errors_and_exit_codes(invoke, tmp_path):
    r = invoke("--home", str(tmp_path / "nowhere"), "get", "user/x", exit_code=10)
    assert r.stderr.startswith("Error: no mem store at ")
    invoke("init")
    r = invoke("get", "user/x", exit_code=4)
    assert r.stderr == "Error: no key user/x\nhint: list keys with: mem keys\n"
    r = invoke("remember", "nope/x", "v", exit_code=2)
    assert "scope must be user, global or project/<name>" in r.stderr
    r = invoke("remember", "user/../etc", "v", exit_code=2)
    assert "'.' and '..'" in r.stderr
    invoke("remember", "user/x", "v", "--kind", "bogus", exit_code=2)
    r = invoke("log", "user/x", "--json", exit_code=4)
    assert json.loads(r.stderr) == {"message_type": "exit_error", "code": 4, "message": "no key user/x",
                                    "hint": "list keys with: mem keys"}
    r = invoke("show", "zzzz", exit_code=4)
    r = invoke("remember", "user/x", "v", "--valid-from", "yesterday-ish", exit_code=2)
    assert "not a time" in r.stderr


def test_show_cat_object_and_keys(invoke):
    invoke("remember", "user/editor", "neovim")
    invoke("remember", "user/editor", "helix")
    v1 = invoke("show", "user/editor@v1", "--json").json
    assert v1["body"] == "neovim" and v1["type"] == "fact"
    assert "neovim" in invoke("show", v1["id"][:10]).stdout
    assert invoke("cat-object", "-t", v1["id"]).stdout == "fact\n"
    payload = invoke("cat-object", v1["id"]).json
    assert payload["key"] == "user/editor" and payload["parent"] is None
    keys = invoke("keys", "--json").json
    assert keys == [{"key": "user/editor", "id": keys[0]["id"], "version": 2, "versions": 2, "body": "helix"}]
    invoke("cat-object", "not-hex", exit_code=2)


def test_cat_object_raw_hashes_to_its_id(mem):
    mem("remember", "user/x", "raw bytes please")
    oid = mem("log", "user/x", "--json").json[0]["id"]
    import subprocess
    import sys
    raw = subprocess.run([sys.executable, "-m", "cmds", "cat-object", "--raw", oid], capture_output=True).stdout
    assert raw.startswith(b"MEMO\x01\x01") and hash_bytes(raw) == oid


def test_log_as_of(invoke):
    invoke("remember", "project/p/port", "5432", "--valid-from", "2026-01-01")
    invoke("remember", "project/p/port", "5433", "--valid-from", "2026-03-01")
    log = invoke("log", "project/p/port", "--json").json
    assert log[0]["current"] and log[0]["body"] == "5433"
    # valid-time view: on 2026-02-01 the value in force was 5432
    recorded = max(v["recorded_at"] for v in log)
    assert recorded > 0
    r = invoke("log", "project/p/port", "--as-of", "2020-01-01", exit_code=4)
    assert "no version recorded by" in r.stderr


def test_nfc_one_key_two_spellings(invoke):
    import unicodedata
    invoke("remember", unicodedata.normalize("NFD", "user/café"), "one")
    invoke("remember", unicodedata.normalize("NFC", "user/café"), "two")
    assert len(invoke("log", "user/café", "--json").json) == 2
