"""Session 33 (test33b T13): one flipped bit in a gc'd pack of hand-typed
facts made every version unreadable (later frames reuse the damaged bytes);
``mem fsck --repair`` removed every key and its reflog, and afterwards
``mem fsck`` and ``mem doctor`` said the store was healthy, the keys' names
gone.  Now the repair records what it removed (``lost-refs``), fsck and
doctor keep naming the keys with the way back, and a pull from a folder
remote (a backup) puts them back, after which fsck is clean again.  Real
stores, real ``mem`` processes, a real flipped bit and a real remote."""

from __future__ import annotations

import json

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
KEYS = {f"project/acme/k{i}": f"value number {i} for key {i}" for i in range(1, 7)}


def _flip_one_bit(store_path) -> None:
    (pack,) = (store_path / "objects" / "pack").glob("pack-*.pack")
    data = bytearray(pack.read_bytes())
    data[len(data) // 3] ^= 0x03   # two bits: one alone the repair finds and flips back (test34b T24)
    pack.write_bytes(bytes(data))


def test_keys_a_repair_removed_are_named_until_a_pull_puts_them_back(mem, store_path, tmp_path):
    for key, value in KEYS.items():
        mem("remember", key, value)
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("remote", "add", "origin", str(remote), "--no-encrypt", env=PERSON)
    mem("backup", env=PERSON, timeout=120)
    mem("gc", "--prune=now")
    _flip_one_bit(store_path)

    rep = mem("fsck", "--repair", "--json", exit_code=None)
    gone = json.loads(rep.stdout)["repair"]["dropped_refs"]
    assert gone, rep.stdout   # the damage costs keys (what this test is about)
    assert all(mem("get", n.split("/", 1)[1], exit_code=None).exit_code != 0 for n in gone)

    out = mem("fsck")                    # no damage left: the loss is a warning, not "healthy" silence
    assert "lost-refs" in out.stdout and "mem pull REMOTE" in out.stdout, out.stdout
    for name in gone:
        assert name in out.stdout, out.stdout
    doc = mem("doctor", exit_code=None)
    assert "removed by 'mem fsck --repair'" in doc.stdout and gone[0] in doc.stdout, doc.stdout
    again = mem("fsck", "--repair")      # a second repair forgets nothing of the record
    assert all(name in mem("fsck").stdout for name in gone), again.stdout

    mem("pull", "origin", env=PERSON, timeout=120)
    for key, value in KEYS.items():
        assert mem("get", key).stdout.strip() == value
    out = mem("fsck")
    assert "lost-refs" not in out.stdout and out.stdout.startswith("ok: "), out.stdout
    assert "removed by 'mem fsck --repair'" not in mem("doctor", exit_code=None).stdout
    mem("fsck", "--repair")               # the record of what came back is dropped
    assert not (store_path / "lost-refs").exists()
