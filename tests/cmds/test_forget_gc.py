"""Forget + gc: the forgotten text is found in no file of the store, raw or
decompressed, nor by search; other keys survive; fsck is clean."""

from __future__ import annotations

import os
import time
from importlib import resources
from pathlib import Path

from objstore.memory.forget import scan_store
from objstore.index.searchindex import SearchIndex

SENTINEL = "zebraquokka-7731"
SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))


def test_forget_then_gc_leaves_no_trace(invoke, store_path):
    invoke("import", "claude-code", str(SAMPLE))
    invoke("remember", "project/p/keep", "postgres on 5433, keep me")
    invoke("remember", "project/p/secret", f"the code is {SENTINEL} alpha")
    invoke("remember", "project/p/secret", f"the code is {SENTINEL} beta")
    ids = [v["id"] for v in invoke("log", "project/p/secret", "--json").json]
    assert invoke("search", SENTINEL, "--json").json
    idx = SearchIndex(store_path / "index")
    assert idx.term_doc_freq(SENTINEL)["zebraquokka"] >= 1  # the term check can see it before forget
    idx.close()
    assert scan_store(store_path, [SENTINEL.encode()])  # the scan can find it before forget

    preview = invoke("forget", "project/p/secret", "--dry-run")
    assert "would forget 2 fact versions and 0 turns" in preview.stdout
    assert "key project/p/secret (all 2 versions)" in preview.stdout
    assert invoke("log", "project/p/secret", "--json").json  # dry run changed nothing
    r = invoke("forget", "project/p/secret", "--yes", "--json").json
    # per version: key + value hash, and a text tombstone (the value may not come back under another key)
    assert r["index_clean"] and len(r["tombstones"]) == 4 and r["objects_deleted"] == 2
    assert len(r["version_records"]) == 2   # one per version, by its metadata (for other machines): no tombstone
    invoke("gc", "--prune=now")

    needles = [SENTINEL.encode(), SENTINEL.upper().encode()] + [i.encode() for i in ids]
    assert scan_store(store_path, needles) == []
    assert invoke("search", SENTINEL, "--json").json == []
    assert invoke("search", "zebraquokka", "--json").json == []
    idx = SearchIndex(store_path / "index")
    assert idx.verify_purged(ids) == []
    assert idx.term_doc_freq(SENTINEL) == {"zebraquokka": 0, "7731": 0}
    assert idx.term_doc_freq("postgres")["postgres"] >= 1  # the check can see a live word
    idx.close()
    invoke("get", "project/p/secret", exit_code=4)
    assert invoke("get", "project/p/keep").stdout == "postgres on 5433, keep me\n"
    assert invoke("search", "flaky", "fixture", "--json").json
    assert invoke("fsck", "--json").json["ok"]


def test_forget_asks_and_aborts_without_yes(invoke):
    invoke("remember", "user/x", "value one")
    r = invoke("forget", "user/x", input="n\n", exit_code=1)
    assert "forget these for good?" in r.stderr
    assert invoke("get", "user/x").stdout == "value one\n"
    invoke("forget", "user/x", input="y\n")
    invoke("get", "user/x", exit_code=4)


def test_gc_grace_period(invoke, store_path):
    from objstore.core.codec import encode
    from objstore.core.loose import LooseObjects
    from objstore.core.objects import Tombstone
    invoke("remember", "user/x", "kept")
    lo = LooseObjects(store_path / "objects")
    young = lo.put(encode(Tombstone(key="user/y", value_sha256=b"\1" * 32, time=1)))
    old = lo.put(encode(Tombstone(key="user/z", value_sha256=b"\2" * 32, time=2)))
    past = time.time() - 30 * 86400
    os.utime(lo.path(old), (past, past))
    plan = invoke("gc", "--dry-run", "--json").json
    assert plan["unreachable"] == 2 and plan["to_delete"] == 1 and plan["kept_young"] == 1
    assert lo.contains(old)  # dry run
    invoke("gc")
    assert not lo.contains(old) and lo.contains(young)
    invoke("gc", "--prune=now")
    assert not lo.contains(young)
    assert invoke("get", "user/x").stdout == "kept\n"
    invoke("gc", "--prune=sometime", exit_code=2)


def test_fsck_detects_corruption(invoke, store_path):
    invoke("remember", "user/x", "one")
    invoke("remember", "user/x", "two")
    oid = invoke("log", "user/x", "--json").json[1]["id"]
    p = store_path / "objects" / oid[:2] / oid[2:]
    import zlib
    frame = zlib.decompress(p.read_bytes())
    p.write_bytes(zlib.compress(frame.replace(b"one", b"uno")))
    r = invoke("fsck", exit_code=13)
    assert oid in r.stdout and "hashes to" in r.stdout
    p.unlink()
    r = invoke("fsck", "--json", exit_code=13).json
    assert any("missing parent" in x for x in r["problems"])
