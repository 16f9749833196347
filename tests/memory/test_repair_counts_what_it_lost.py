"""``mem fsck --repair`` ended with "repair: N objects lost", N being the
damaged objects its chain walks stopped at: two lost versions in a row of
one key counted once, a removed key's head and a lost tombstone were
counted alike, and no line said how many 'lost' placeholders the store
now holds (session 19's tester, W2; also "1 problems", "1 refs").  Now each
mended history says how many placeholders it got, and the last line,
"lost in all: …", counts exactly the placeholders written (by kind, and in
how many keys) and the refs removed; the counts are checked against the
store."""

from __future__ import annotations

import re

DB, Y, X = "project/api/db", "project/api/y", "project/api/x"


def _damage(store_path, oid: str) -> None:
    (store_path / "objects" / oid[:2] / oid[2:]).write_bytes(b"garbage")


def _placeholders(mem, key: str) -> list[int]:
    return [v["version"] for v in mem("log", key, "--json").json
            if any(s.startswith("lost") for s in v["sources"])]


def test_the_repair_counts_what_the_store_now_holds(mem, store_path):
    for v in range(1, 5):
        mem("remember", DB, f"db value {v}")
    mem("remember", Y, "y value 1")
    mem("remember", Y, "y value 2")
    mem("remember", X, "x value 1")
    for v in mem("log", DB, "--json").json:          # two versions in a row of one key: 2 lost, 1 gap
        if v["version"] in (2, 3):
            _damage(store_path, v["id"])
    _damage(store_path, mem("log", Y, "--json").json[0]["id"])   # a key's current value
    _damage(store_path, mem("log", X, "--json").json[0]["id"])   # a key with nothing else

    r = mem("fsck", "--repair", exit_code=13)         # y's current value is lost: the person's call
    out = r.stdout
    assert _placeholders(mem, DB) == [3, 2] and _placeholders(mem, Y) == [2]
    assert "was lost to damage" in mem("get", X, exit_code=13).stderr   # recorded in lost-refs (test34 T2)
    assert (f"repair: mended facts/{DB}: 2 lost versions kept as empty 'lost' placeholders in their places"
            in out), out
    assert f"repair: mended facts/{Y}: 1 lost version kept as an empty 'lost' placeholder in its place" in out
    [summary] = [ln for ln in out.splitlines() if ln.startswith("repair: lost in all: ")]
    assert summary == (f"repair: lost in all: 3 versions, now 3 'lost' placeholders in 2 keys; "
                       f"1 ref removed with nothing readable (facts/{X})"), summary
    assert "objects lost" not in out
    assert re.search(r"^CORRUPT: \d+ objects, 2 refs, 0 unreachable, 1 problem$", out, re.M), out

    # nothing more to repair: no new placeholder; y's lost value is still said, exit 13 (test34b T18)
    doc = mem("fsck", "--repair", "--json", exit_code=13).json
    assert doc["repair"]["stubs"] == 0 and doc["repair"]["placeholders"] == {}
    assert "lost in all" not in mem("fsck", "--repair", exit_code=13).stdout
    assert _placeholders(mem, DB) == [3, 2] and _placeholders(mem, Y) == [2]


def test_the_json_names_the_placeholders_of_each_history(mem, store_path):
    for v in range(1, 4):
        mem("remember", DB, f"db value {v}")
    _damage(store_path, mem("log", DB, "--json").json[1]["id"])   # v2
    doc = mem("fsck", "--repair", "--json").json
    assert doc["repair"]["placeholders"] == {f"facts/{DB}": 1} and doc["repair"]["stubs"] == 1
    assert _placeholders(mem, DB) == [2]


def test_one_lost_version_is_said_in_the_singular(mem, store_path):
    for v in range(1, 4):
        mem("remember", DB, f"db value {v}")
    _damage(store_path, mem("log", DB, "--json").json[1]["id"])   # v2
    out = mem("fsck", "--repair").stdout
    assert "repair: lost in all: 1 version, now a 'lost' placeholder in 1 key\n" in out, out
    assert re.search(r"^ok: \d+ objects, 1 ref, 0 unreachable, 0 problems$", out, re.M), out
    assert _placeholders(mem, DB) == [2]
