"""test16 F4: a "remember that …" key named after the stated value kept the
value after ``forget --match`` + gc, in the key's tombstone (and the ref file
name, reflog and audit log before): ``mem scan`` found it for good and no
command removed it.  Now a stated fact's key is named from its subject
(``capture.statements``), and ``forget --match TEXT`` forgets a key mem
derived whose name holds TEXT, writes the tombstone of any key whose name
holds it by hash (``tombstones.hidden_key``), and names by hash the
tombstones an older mem wrote naming such a key.  Real ``mem`` processes on
a real store."""

from __future__ import annotations

import os

from objstore import Store
from objstore.core.objects import Tombstone, value_digest
from objstore.memory.tombstones import all_tombstones, hidden_key, put_tombstone
from tests.capture.test_fresh6_capture import _files_holding, _keys, _prompt

VALUE = "walrus-orchid-77"


def test_a_stated_fact_is_keyed_by_its_subject_and_forget_match_leaves_nothing(tmp_path, mem):
    store = tmp_path / "store"
    _prompt(store, tmp_path, f"remember that the deploy host is {VALUE}")
    _prompt(store, tmp_path, "remember that kiwimango5 runs the nightly build")
    # a password in the subject ("… is what we use for the admin account") is redacted, never a key (red16b)
    _prompt(store, tmp_path, "remember that hunter2x9 is what we use for the admin account")
    keys = _keys(mem, store)
    assert "project/p5/remembered/deploy-host" in keys, keys          # the subject, not the value
    key = "project/p5/remembered/kiwimango5-runs-nightly"
    assert key in keys, keys                                          # (no copula: its first words hold the value)
    assert not any("hunter2x9" in k for k in keys), keys
    e = {"MEM_HOME": str(store)}
    for text in ("walrus-orchid", "kiwimango5"):
        mem("forget", "--match", text, "--yes", env=e)
    mem("gc", "--prune=now", env=e)
    for text in ("walrus", "kiwimango5"):
        assert mem("scan", text, env=e).stdout.startswith("found nowhere"), text
        assert _files_holding(store, text) == [], text               # ref names, reflogs, audit log too
    # the tombstone still does its work: by hash of the key
    out = mem("forget", key, "--yes", env=e).stdout
    assert "already forgotten" in out, out
    r = mem("remember", key, "kiwimango5 runs the nightly build", "--trust", "agent_observed", env=e, exit_code=6)
    assert "forgotten" in r.stderr
    mem("fsck", env=e)


def test_a_key_mem_derived_is_forgotten_whole_when_only_its_name_holds_the_text(tmp_path, mem):
    e = {"MEM_HOME": str(tmp_path / "store")}
    mem("init", env=e)
    mem("remember", f"project/p5/remembered/deploy-host-{VALUE}", "moved to the new rack", env=e)
    mem("remember", f"project/p5/db/{VALUE}", "a name the person chose", env=e)
    r = mem("forget", "--match", "walrus-orchid", "--yes", env=e)
    assert "whole keys: 1" in r.stdout, r.stdout
    keys = _keys(mem, tmp_path / "store")
    assert f"project/p5/remembered/deploy-host-{VALUE}" not in keys and f"project/p5/db/{VALUE}" in keys
    assert f"project/p5/db/{VALUE}" in r.stderr                     # named: 'mem forget KEY' forgets it
    mem("gc", "--prune=now", env=e)
    hits = mem("scan", "walrus-orchid", "--json", env=e, exit_code=1).json
    assert hits and not any("remembered" in h["where"] + h["detail"] for h in hits), hits
    assert any(h["detail"].startswith(f"fact project/p5/db/{VALUE}") for h in hits), hits   # the live key only


def test_an_older_stores_tombstone_naming_the_key_is_named_by_hash(tmp_path, mem):
    """The state F4 left: an older mem's forget wrote the key's name in its
    tombstone; ``forget --match`` now rewrites it by hash and deletes it."""
    root = tmp_path / "store"
    e = {"MEM_HOME": str(root)}
    mem("init", env=e)
    key = f"project/p5/remembered/deploy-host-{VALUE}"
    body = f"the deploy host is {VALUE}"
    s = Store.open(root)
    with s.lock("test"):
        old = put_tombstone(s, Tombstone(key=key, value_sha256=value_digest(body), time=1_770_000_000_000,
                                         reason="forget"))
    mem("gc", "--prune=now", env=e)                                   # packed, as F4 found it
    assert "tombstone " + key in mem("scan", "walrus-orchid", env=e, exit_code=1).stdout
    r = mem("forget", "--match", "walrus-orchid", "--yes", "--json", env=e).json
    assert r["tombstones_renamed"] == [old]
    mem("gc", "--prune=now", env=e)
    assert mem("scan", "walrus-orchid", env=e).stdout.startswith("found nowhere")
    assert _files_holding(root, "walrus") == []
    assert not (root / "refs" / "tombstones" / old).exists()
    s = Store.open(root)
    kept = all_tombstones(s)   # as the rules read them (a keyed digest read back plain: tombdigests)
    assert [(t.key, t.value_sha256, t.time) for t in kept if t.key != "text"] == \
        [(hidden_key(key), value_digest(body), 1_770_000_000_000)]
    mem("remember", key, body, "--trust", "agent_observed", env=e, exit_code=6)   # still refused
    assert "already forgotten" in mem("forget", key, "--yes", env=e).stdout
    mem("fsck", env=e)
    assert os.listdir(root / "refs" / "tombstones")
