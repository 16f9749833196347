"""test34b T24 and T26, with real stores and real ``mem`` processes.

T24: one flipped bit in the first half of a gc'd 12-key pack lost every
key (the later objects inflate to wrong bytes: text they copy, a Huffman
table they share), and the repair gave no cause.  Now ``mem fsck
--repair`` finds the bit, flips it back (the pack's name proves the
result is the pack as written) and loses nothing; a damaged byte it cannot
undo is named as what the block shares.

T26: with a pack file moved away, ``mem gc`` sent the user to ``mem fsck
--repair`` (which rightly changes nothing then) in a loop, and doctor's
``[refs]`` line called the intact refs damaged."""

from __future__ import annotations

import json

KEYS = [f"project/k/key{i}" for i in range(1, 13)]


def _packed(mem, store_path):
    for i, key in enumerate(KEYS, 1):
        mem("remember", key, f"value {i}")
    mem("remember", "project/k/key3", "value 3 second")
    mem("gc", "--prune=now")
    (pack,) = (store_path / "objects" / "pack").glob("pack-*.pack")
    return pack


def test_one_flipped_bit_anywhere_in_the_block_loses_no_key(mem, store_path):
    pack = _packed(mem, store_path)
    good = pack.read_bytes()
    hit = 0
    for at in range(24, len(good) - 40, max(1, (len(good) - 64) // 6)):   # ~6 places across the block
        b = bytearray(good)
        b[at] ^= 0x10
        pack.write_bytes(bytes(b))
        if mem("keys").stdout.count("project/k/") == len(KEYS):
            pack.write_bytes(good)       # a bit nothing depends on (deflate's padding): no loss to undo
            continue
        hit += 1
        rep = mem("fsck", "--repair", "--json", exit_code=None)
        fixed = json.loads(rep.stdout)["repair"]
        assert fixed["unflipped"] == [{"pack": pack.name[5:-5], "offset": at, "bit": 4}], rep.stdout
        assert not fixed["dropped_objects"] and not fixed["dropped_refs"], rep.stdout
        assert pack.read_bytes() == good
        assert mem("keys").stdout.count("project/k/") == len(KEYS)
        assert mem("get", "project/k/key3").stdout.strip() == "value 3 second"
        mem("fsck")
    assert hit >= 3


def test_a_damaged_byte_that_cannot_be_undone_is_given_its_cause(mem, store_path):
    pack = _packed(mem, store_path)
    good = pack.read_bytes()
    for at in range(len(good) // 2, len(good) - 40):
        b = bytearray(good)
        b[at] ^= 0x41                    # two bits: not undone
        pack.write_bytes(bytes(b))
        out = mem("fsck", "--json", exit_code=None).stdout
        if "content hashes to" in out:
            break
    else:
        raise AssertionError("no two-bit damage made an object inflate to wrong bytes")
    rep = mem("fsck", "--repair", exit_code=None).stdout
    assert "had one flipped bit" not in rep, rep
    assert "inflate to wrong bytes: the damage is in what their compressed block shares" in rep, rep


def test_gc_and_doctor_name_a_missing_pack_not_a_repair(mem, store_path, tmp_path):
    pack = _packed(mem, store_path)
    away = tmp_path / pack.name
    pack.rename(away)
    out = mem("gc", "--prune=now").stdout
    assert f"pack file {pack.name} is missing" in out and "put it back, then gc again" in out, out
    assert "run 'mem fsck --repair', then gc again" not in out, out
    doc = mem("doctor", exit_code=None).stdout
    refs = [line for line in doc.splitlines() if "[refs]" in line]
    assert refs and all("damaged ref" not in line for line in refs), doc
    assert any(f"missing pack file {pack.name}" in line and "intact" in line for line in refs), doc
    mem("fsck", "--repair", exit_code=13)
    away.rename(pack)
    assert mem("keys").stdout.count("project/k/") == len(KEYS)
    mem("fsck")


SID = "11111111-2222-3333-4444-555555555555"


def _transcript(path) -> None:
    with open(path, "w") as f:
        for i in range(40):
            role = "user" if i % 2 == 0 else "assistant"
            f.write(json.dumps({"type": role, "sessionId": SID, "uuid": f"u-{i}", "cwd": "/tmp/proj",
                                "timestamp": f"2026-12-03T16:{i:02d}:00.000Z",
                                "message": {"role": role, "content": f"turn {i} says {i * 7919} about the build"}})
                    + "\n")


def test_a_session_whose_end_is_lost_says_so_and_reread_puts_it_back(mem, store_path, tmp_path):
    """test34 T11: the tail of a session (its head with it) vanished with "its readable versions relinked (no
    placeholder needed)" and was counted nowhere.  Now a 'lost' placeholder keeps the end's place, the repair
    says the session was cut short, and 'mem import --reread' of the transcript fills it: the session is as
    it was, ids and all."""
    tx = tmp_path / "s.jsonl"
    _transcript(tx)
    mem("import", "claude-code", str(tx))
    mem("gc", "--prune=now")
    before = mem("show", SID).stdout
    (pack,) = (store_path / "objects" / "pack").glob("pack-*.pack")
    good = pack.read_bytes()
    for at in range(int(len(good) * 0.9), int(len(good) * 0.5), -1):   # two bits: not undone by the repair
        b = bytearray(good)
        b[at] ^= 0x60
        pack.write_bytes(bytes(b))
        shown = mem("show", SID, exit_code=None)
        if shown.exit_code != 0 and "[39]" not in shown.stdout:   # its head (turn 39) is lost
            break
    else:
        raise AssertionError("no two-bit damage cost the session's head")
    rep = mem("fsck", "--repair", exit_code=None).stdout
    assert f"mended sessions/{SID}: its last turns were lost with its head (from turn #" in rep, rep
    assert "lost in all: the end of 1 session from a lost head on" in rep, rep
    assert "no placeholder needed" not in rep, rep
    shown = mem("show", SID).stdout
    assert "(lost: mem fsck --repair could not recover this turn)" in shown.splitlines()[-1], shown
    # dmg35's left-out: every later fsck and doctor name the cut-short session and the command that fills it
    cut = f"sessions/{SID}: its last turns were lost with its head (from turn #"
    out = mem("fsck").stdout
    assert f"warning: {cut}" in out and "'mem import claude-code --reread' (or codex)" in out, out
    doc = json.loads(mem("doctor", "--json", exit_code=None).stdout)
    said = [f for f in doc["findings"] if f["check"] == "refs" and "cut short by damage" in f["message"]]
    assert said and cut in said[0]["message"] and "--reread" in said[0]["fix"], doc["findings"]
    out = mem("import", "claude-code", "--reread", str(tx)).stdout
    assert "1 of 1 gap verified" in out, out
    assert mem("show", SID).stdout == before
    assert cut not in mem("fsck").stdout
    assert "cut short" not in mem("doctor", exit_code=None).stdout
