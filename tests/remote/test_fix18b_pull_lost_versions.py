"""Lane fix18b (tester finding U3): after ``mem fsck --repair`` kept a fact
key's lost versions as 'lost' placeholders, ``mem pull`` from a remote that
holds the real versions puts them back in the placeholders' places — the
numbers and ids from before the damage — instead of stacking them after a
phantom version (renumbered, new ids), and the next push leaves the
remote's intact history as it is.  Real ``mem`` processes, a folder remote,
a real pack block made unreadable (``_flip_block_of``)."""

from __future__ import annotations

import json

import pytest

from tests.memory.test_refill import _flip_block_of

KEY = "project/c/same"


def _log(mem) -> list[tuple[int, str, str]]:
    return [(v["version"], v["id"], v["body"]) for v in json.loads(mem("log", KEY, "--json").stdout)]


@pytest.mark.parametrize("above", [0, 8], ids=["lost-head", "lost-middle"])
def test_pull_puts_the_remote_versions_back_in_the_places_of_the_lost_ones(mem, store_path, tmp_path, above):
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("init")
    mem("remote", "add", "origin", str(remote), "--no-encrypt")
    for i in range(1, 17):
        mem("remember", KEY, f"value {i}")
        if i in (8, 16):
            mem("gc")                                    # v1-v8 in one pack, v9-v16 in another
    for i in range(17, 17 + above):
        mem("remember", KEY, f"value {i}")               # (loose: readable above the damage)
    mem("push")
    before = _log(mem)
    assert len(before) == 16 + above
    v12 = next(oid for n, oid, _b in before if n == 12)
    _flip_block_of(store_path, v12, 0.0)                 # the block of v9-v16: none of them reads
    mem("fsck", "--repair", exit_code=None)              # (13 for a lost head: its value is gone here)
    mended = _log(mem)
    assert any(b == "" for _n, _o, b in mended) and mended != before

    r = mem("pull")
    assert "8 lost versions put back in their places" in r.stdout, r.stdout
    assert "received 8 objects" in r.stdout, r.stdout    # read back from the remote's packs (was "0 objects")
    assert _log(mem) == before                           # numbers, ids and values as before the damage
    assert mem("get", KEY).stdout.strip().endswith(f"value {16 + above}")
    assert mem("fsck").stdout.splitlines()[-1].startswith("ok:")
    r = mem("push")
    assert "rewritten" not in r.stdout + r.stderr, r.stdout     # the remote's history is left as it was

    clone = {"MEM_HOME": str(tmp_path / "clone")}        # a machine that never repaired: the same history
    mem("clone", str(remote), env=clone)
    assert [(v["version"], v["id"]) for v in json.loads(mem("log", KEY, "--json", env=clone).stdout)] == \
        [(n, o) for n, o, _b in before]
