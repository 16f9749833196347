"""``forget --match TEXT`` when TEXT is in a fact's key, not its value:
nothing said so ("nothing stored holds it", tester s14).  forget --match
and mem scan now name the keys whose name holds it and point to
``mem forget KEY``; a tombstone naming such a key is written again naming
it by hash (``tombstones.hidden_key``)."""

from __future__ import annotations


def test_forget_match_and_scan_name_the_key_holding_the_text(invoke):
    invoke("remember", "project/zebrafish/db", "postgres")
    invoke("remember", "project/other/db", "mysql")
    r = invoke("forget", "--match", "ZebraFish", "--dry-run")
    assert "no value holds it; nothing forgotten" in r.stdout
    assert ("note: the name of 1 key holds it (project/zebrafish/db)" in r.stderr
            and "'mem forget KEY'" in r.stderr), r.stderr
    assert invoke("forget", "--match", "zebrafish", "--json").json["keys_naming"] == ["project/zebrafish/db"]
    assert invoke("get", "project/zebrafish/db").stdout == "postgres\n"
    r = invoke("scan", "zebrafish", exit_code=1)
    assert "the name of 1 key holds it (project/zebrafish/db): 'mem forget KEY'" in r.stderr, r.stderr
    assert "removes it from the store where a value or a turn holds it" in r.stderr, r.stderr  # (not from a key's name)
    invoke("forget", "project/zebrafish/db", "--yes")
    assert "keys_naming" not in invoke("scan", "zebrafish", "--json", exit_code=None).stdout
    # that forget's tombstone names the key: --match writes it again by hash (session 16, test16 F4)
    r = invoke("forget", "--match", "zebrafish", "--dry-run")
    assert "note:" not in r.stderr and "1 tombstone of a forgotten key whose name holds it" in r.stdout, r.stdout
    assert "named 1 forgotten key by hash" in invoke("forget", "--match", "zebrafish", "--yes").stdout
    invoke("gc", "--prune=now")
    assert invoke("scan", "zebrafish").stdout.startswith("found nowhere")
    r = invoke("forget", "--match", "zebrafish", "--dry-run")
    assert "note:" not in r.stderr and "nothing matches" in r.stdout
    assert "already forgotten" in invoke("forget", "project/zebrafish/db", "--yes").stdout


def test_a_value_and_a_key_both_holding_it(invoke):
    invoke("remember", "project/kiwi/notes", "deploys are manual")
    invoke("remember", "project/kiwi/notes", "the kiwi deploy runs nightly")
    r = invoke("forget", "--match", "kiwi", "--yes")
    assert "forgot 1 fact version" in r.stdout
    assert "the name of 1 key holds it (project/kiwi/notes)" in r.stderr   # the key stays, with v1
    invoke("remember", "project/plum/notes", "plum only here")
    r = invoke("forget", "--match", "plum", "--yes")   # its one version goes, and the key with it
    assert "forgot 1 fact version" in r.stdout and "note: the name" not in r.stderr
