"""Left out by session 32's tv32, through real ``mem`` processes: a sealed
version scheduled ahead is not current before its time (``mem sealed show``
serves the earlier one, or exits 4 saying when, as ``mem get`` does for a
plain key; the sealed write says so, as a plain one does), and ``mem log`` marks a version not valid yet and a lower-trust
scheduled version a later higher-trust write overrules (text and
``--json``: ``due``, ``overruled_by``), for plain and sealed keys."""

from __future__ import annotations

import json

FUTURE = "2099-01-01T00:00:00Z"


def _vault(mem, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass tv33\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    return str(pp)


def test_sealed_show_serves_the_earlier_value_until_the_scheduled_one_is_due(mem, tmp_path):
    pp = _vault(mem, tmp_path)
    first = mem("remember", "user/bank/pin", "pin-now-4417", "--sensitivity", "secret", "--json").json["id"]
    w = mem("remember", "user/bank/pin", "pin-later-9923", "--sensitivity", "secret", "--valid-from", FUTURE)
    assert w.stdout.rstrip().endswith("(valid from 2099-01-01T00:00:00Z, in the future: until then the current "
                                      f"value stays {first[:12]})"), w.stdout
    assert mem("sealed", "show", "user/bank/pin", "--passphrase-file", pp).stdout == "pin-now-4417\n"
    log = mem("log", "user/bank/pin").stdout.splitlines()
    assert log[0].startswith("v2 ") and log[0].endswith("(scheduled: not valid yet)"), log
    assert log[2].startswith("v1 ") and log[2].endswith("(current)"), log
    doc = json.loads(mem("log", "user/bank/pin", "--json").stdout)
    assert [(d["version"], d["current"], d["due"], d["overruled_by"]) for d in doc] == \
        [(2, False, False, None), (1, True, True, None)]
    # at its time it takes over, as a plain key's scheduled version does
    later = mem("log", "user/bank/pin", "--as-of", "2099-06-01T00:00:00Z", "--json").json
    assert [(d["version"], d["current"], d["due"]) for d in later] == [(2, True, True), (1, False, True)]


def test_a_sealed_key_valid_only_later_has_no_current_value_as_a_plain_key(mem, tmp_path):
    pp = _vault(mem, tmp_path)
    w = mem("remember", "user/bank/code", "code-later-5501", "--sensitivity", "secret", "--valid-from", FUTURE)
    assert w.stdout.rstrip().endswith("(valid from 2099-01-01T00:00:00Z, in the future: no current value until then)")
    r = mem("sealed", "show", "user/bank/code", "--passphrase-file", pp, exit_code=4)
    assert "code-later" not in r.stdout
    assert "has no current value (not valid yet: v1 is scheduled, valid from 2099-01-01T00:00:00Z)" in r.stderr
    mem("remember", "project/api/dc", "eu-west-2", "--valid-from", FUTURE)
    plain = mem("get", "project/api/dc", exit_code=4)
    assert plain.stderr.replace("project/api/dc", "KEY") == r.stderr.replace("user/bank/code", "KEY")
    # listed as not valid yet, not as a value lost to damage
    listed = mem("sealed", "list")
    assert "user/bank/code  -/1  sealed  no current value (not valid yet: v1 is scheduled" in listed.stdout
    assert "lost" not in listed.stdout + listed.stderr


def test_log_marks_an_overruled_schedule_and_one_not_due_yet(mem):
    mem("remember", "project/api/region", "us-east-1", "--valid-from", FUTURE, "--trust", "agent_observed")
    mem("remember", "project/api/region", "eu-west-2")
    mem("remember", "project/api/region", "ap-south-1", "--valid-from", "2098-01-01T00:00:00Z")
    out = mem("log", "project/api/region").stdout.splitlines()
    assert out[0].startswith("v3 ") and out[0].endswith("(scheduled: not valid yet)"), out
    assert out[2].startswith("v2 ") and out[2].endswith("(current)"), out
    assert out[4].startswith("v1 ") and out[4].endswith("(overruled by v2: never current)"), out
    doc = mem("log", "project/api/region", "--json").json
    assert [(d["version"], d["current"], d["due"], d["overruled_by"]) for d in doc] == \
        [(3, False, False, None), (2, True, True, None), (1, False, False, 2)]   # v1's own time: not due (T11)
    # in 2099 the overruled version still is not current: v3 is
    later = mem("log", "project/api/region", "--as-of", "2099-06-01T00:00:00Z").stdout.splitlines()
    assert later[0].endswith("(current)") and later[4].endswith("(overruled by v2: never current)"), later
    doc = mem("log", "project/api/region", "--as-of", "2099-06-01T00:00:00Z", "--json").json
    assert [(d["version"], d["due"], d["overruled_by"]) for d in doc] == [(3, True, None), (2, True, None), (1, True, 2)]


def test_a_sealed_lower_trust_schedule_is_marked_overruled(mem, tmp_path):
    _vault(mem, tmp_path)
    mem("remember", "user/bank/iban", "iban-agent-77", "--sensitivity", "secret", "--valid-from", FUTURE,
        "--trust", "agent_observed")
    mem("remember", "user/bank/iban", "iban-person-12", "--sensitivity", "secret")
    doc = mem("log", "user/bank/iban", "--json").json
    assert [(d["version"], d["current"], d["overruled_by"]) for d in doc] == [(2, True, None), (1, False, 2)]
    assert "(overruled by v2: never current)" in mem("log", "user/bank/iban").stdout
