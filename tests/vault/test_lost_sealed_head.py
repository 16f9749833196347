"""The object of a sealed key's newest version is damaged: ``mem fsck
--repair`` set the ref back to the older version and ``mem sealed show``
printed the superseded value as current (session 13, lane fix13).  Now the
lost head keeps its place as a sealed 'lost' stub above the newest readable
version, as a plain key's does since session 12 (``objstore.memory.lost``):
``sealed show`` exits 13 naming both, ``log`` and ``sealed list`` mark no
version current, an agent's write stays refused, and a new sealed value
ends it."""

from __future__ import annotations

import json
import os

from objstore.core.objects import is_lost_stub, lost_sealed_age


def _damage_head(store, store_path, key: str) -> str:
    head = store.refs.read(f"sealed/{key}")
    (store_path / "objects" / head[:2] / head[2:]).write_bytes(b"garbage")
    return head


def test_a_lost_newest_sealed_version_is_never_served_as_current(vstore, store_path, invoke, pwfile):
    pw = ["--passphrase-file", str(pwfile)]
    for v in ("4821-kw", "9375-kw"):
        invoke("remember", "user/bank/pin", v, "--sensitivity", "secret")
    lost = _damage_head(vstore, store_path, "user/bank/pin")
    r = invoke("fsck", "--repair", exit_code=13)
    assert "the current value of user/bank/pin was lost: its place is kept (v3" not in r.stdout
    assert "the current value of user/bank/pin was lost: its place is kept (v2, 'lost'); v1" in r.stdout
    assert "a sealed value is on no remote" in r.stderr and "mem pull" not in r.stderr
    r = invoke("sealed", "show", "user/bank/pin", *pw, exit_code=13)
    assert "4821" not in r.stdout and r.stdout == ""
    assert ("Error: the current value of user/bank/pin was lost to damage (v2, kept as a 'lost' placeholder by "
            "mem fsck --repair); v1 is the newest readable value") in r.stderr
    assert invoke("sealed", "show", "user/bank/pin", "--version", "1", *pw).stdout == "4821-kw\n"
    r = invoke("sealed", "show", "user/bank/pin", "--version", "2", *pw, exit_code=13)
    assert "v2 was lost to damage" in r.stderr
    shown = invoke("sealed", "show", "user/bank/pin", "--all", "--json", *pw).json
    assert [(d["version"], d["value"], d["current"]) for d in shown] == [(2, None, False), (1, "4821-kw", False)]
    log = invoke("log", "user/bank/pin")
    assert "(current)" not in log.stdout and "(lost)" in log.stdout and "was lost to damage" in log.stderr
    assert not any(v["current"] for v in invoke("log", "user/bank/pin", "--json").json)
    listed = invoke("sealed", "list", "--json")
    assert json.loads(listed.stdout) == [{"key": "user/bank/pin", "versions": 2, "current_version": None,
                                          "id": None, "valid_from": None}]
    assert "was lost" in listed.stderr
    # the stub: a sealed version nothing decrypts, naming the lost id
    stub = vstore.refs.read("sealed/user/bank/pin")
    from objstore.core.objects import Sealed
    obj = vstore.get(stub, Sealed)
    assert is_lost_stub(obj) and obj.age == lost_sealed_age(lost) and obj.version == 2
    fsck = invoke("fsck", exit_code=13)     # one verdict with the repair's (test34b T18)
    assert "error: sealed/user/bank/pin: its current value (v2) was lost" in fsck.stdout
    # an agent's lower-trust write stays refused as over the value the stub stands for
    os.environ["MEM_AGENT"] = "bot"
    try:
        invoke("remember", "user/bank/pin", "0000-kw", "--sensitivity", "secret", exit_code=6)
    finally:
        del os.environ["MEM_AGENT"]
    invoke("remember", "user/bank/pin", "1111-kw", "--sensitivity", "secret")
    assert invoke("sealed", "show", "user/bank/pin", *pw).stdout == "1111-kw\n"
    assert invoke("fsck").stdout.startswith("ok:") and "warning" not in invoke("fsck").stdout
    assert invoke("sealed", "list", "--json").json[0]["current_version"] == 3


def test_a_sealed_key_with_only_its_head_is_dropped(vstore, store_path, invoke, pwfile):
    invoke("remember", "user/door", "7777-kw", "--sensitivity", "secret")
    _damage_head(vstore, store_path, "user/door")
    r = invoke("fsck", "--repair")
    assert "removed sealed/user/door" in r.stdout
    invoke("sealed", "show", "user/door", "--passphrase-file", str(pwfile), exit_code=4)


def test_unseal_of_a_key_whose_newest_version_was_lost(vstore, store_path, invoke, pwfile):
    """``mem unseal`` of a sealed key whose newest version is fsck
    --repair's lost placeholder exited 13 with a hint to run fsck --repair
    (already done; tester s14): the placeholder becomes a plain one in its
    place, as seal turns a plain one into a sealed one, so the older value
    never becomes current; a new value ends it as for any plain key."""
    pw = ["--passphrase-file", str(pwfile)]
    for v in ("4821-kw", "9375-kw"):
        invoke("remember", "user/bank/pin", v, "--sensitivity", "secret")
    lost = _damage_head(vstore, store_path, "user/bank/pin")
    invoke("fsck", "--repair", exit_code=13)
    r = invoke("unseal", "user/bank/pin", *pw)
    assert "2 versions restored" in r.stdout
    r = invoke("get", "user/bank/pin", exit_code=13)
    assert "4821" not in r.stdout and "the current value of user/bank/pin was lost to damage (v2" in r.stderr
    log = invoke("log", "user/bank/pin")
    assert "(lost: mem fsck --repair could not recover this version)" in log.stdout and "4821-kw" in log.stdout
    from objstore.core.objects import Fact
    stub = vstore.get(vstore.refs.read("facts/user/bank/pin"), Fact)
    assert is_lost_stub(stub) and stub.sources == (f"lost:{lost}",) and stub.version == 2
    assert invoke("sealed", "list", "--json").json == []
    invoke("remember", "user/bank/pin", "1111-kw")
    assert invoke("get", "user/bank/pin").stdout == "1111-kw\n"
