"""``mem forget`` of a key that ``mem fsck --repair`` recorded in
``lost-refs`` (dmg33's left-out): the line stayed, so fsck and doctor kept
asking for the forgotten key back ("'mem pull REMOTE' ... puts them back").
Now a forget of a key the repair removed (nothing of it stored) drops its
line, exit 0, and so does a forget of a key set again since and forgotten.
What still names the key after ``gc --prune=now`` is what names any
forgotten key: its tombstone and the audit log.  Real stores, real ``mem``
processes, a real flipped bit."""

from __future__ import annotations

import json

from tests.cmds.test_repair_lost_refs import _flip_one_bit

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
KEYS = {f"project/acme/k{i}": f"value number {i} for key {i}" for i in range(1, 7)}


def _lost(store_path) -> list[str]:
    try:
        return [ln.split(" ", 2)[2] for ln in (store_path / "lost-refs").read_text().splitlines()]
    except FileNotFoundError:
        return []


def _scan(mem, text) -> list[dict]:
    return json.loads(mem("scan", text, "--json", "--no-remotes", exit_code=None).stdout)


def _two_lost_keys(mem, store_path) -> tuple[str, str]:
    """Six keys, one bit flipped in their pack, ``fsck --repair``: two of
    the keys it removed and recorded."""
    for key, value in KEYS.items():
        mem("remember", key, value)
    mem("gc", "--prune=now")
    _flip_one_bit(store_path)
    gone = json.loads(mem("fsck", "--repair", "--json", exit_code=None).stdout)["repair"]["dropped_refs"]
    assert len(gone) >= 2 and set(gone) <= {f"facts/{k}" for k in KEYS}, gone
    return gone[0].split("/", 1)[1], gone[1].split("/", 1)[1]


def _named_only_as_forgotten(mem, key) -> None:
    """What names a forgotten key after ``gc --prune=now``: its tombstone
    and the audit log, as for any forgotten key; never ``lost-refs``."""
    places = {(p["place"], p["where"].rsplit("/", 1)[-1]) for p in _scan(mem, key)}
    assert ("store file", "lost-refs") not in places, places
    assert {p for p in places if p[0] != "object"} <= {("store file", "audit")}, places


def test_forget_of_a_key_a_repair_removed_drops_its_line(mem, store_path):
    lost, again = _two_lost_keys(mem, store_path)

    # a key the repair removed, nothing of it stored: the person accepts the loss by forgetting it
    r = mem("forget", lost, "--dry-run")
    assert "would drop its line in lost-refs" in r.stdout and f"facts/{lost}" in _lost(store_path), r.stdout
    r = mem("forget", lost, "--yes", env=PERSON)
    assert "dropped its line in lost-refs" in r.stdout, r.stdout
    assert f"facts/{lost}" not in _lost(store_path) and f"facts/{again}" in _lost(store_path)
    assert f"facts/{lost}" not in mem("fsck").stdout
    assert f"facts/{lost}" not in mem("doctor", exit_code=None).stdout
    assert mem("forget", lost, "--yes", env=PERSON, exit_code=None).exit_code == 4   # nothing left to say
    mem("gc", "--prune=now")
    _named_only_as_forgotten(mem, lost)
    assert _scan(mem, KEYS[lost]) == []
    assert "ok:" in mem("fsck").stdout


def test_forget_of_a_key_set_again_since_the_repair_drops_its_line(mem, store_path):
    lost, again = _two_lost_keys(mem, store_path)
    mem("remember", again, "a new value for it 4711")
    assert f"facts/{again}" in _lost(store_path)          # the line stays until a repair prunes it
    mem("forget", again, "--yes", env=PERSON)
    assert f"facts/{again}" not in _lost(store_path)
    out = mem("fsck").stdout
    assert f"facts/{again}" not in out, out
    assert f"facts/{lost}" in out                        # the other stays named, still lost
    mem("gc", "--prune=now")
    _named_only_as_forgotten(mem, again)
    assert _scan(mem, "a new value for it 4711") == []
    assert _scan(mem, KEYS[again]) == []
