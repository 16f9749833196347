"""Session 34 (test34 T2, T3): every reader that skipped damage said "a pack
file is missing … ('mem fsck --repair' keeps every ref meanwhile)", for a
damaged pack, for a pack moved away with its ``.idx`` and for a ref file
with one hex digit flipped; in the first two cases the repair then removed
every ref.  After it, ``mem get`` of a removed key said only "no key" and
``mem doctor`` ended "ok: no problem found".  Now each cause is said in its
own words with what ``--repair`` truly does, ``mem get`` of a key recorded
in ``lost-refs`` says it was lost to damage (exit 13), and doctor reports
an error while ``lost-refs`` names keys.  Real stores, real ``mem``
processes, real flipped bits and moved files."""

from __future__ import annotations

import shutil

KEYS = [f"project/k/key{i}" for i in range(1, 7)]
UNTRUE = "keeps every ref"


def _packed(mem, store_path):
    for i, key in enumerate(KEYS, 1):
        mem("remember", key, f"value {i} first")
        mem("remember", key, f"value {i} second")
    mem("gc", "--prune=now")
    (pack,) = (store_path / "objects" / "pack").glob("pack-*.pack")
    return pack


def _flip_one_bit(mem, pack) -> None:
    """Two bits of one byte flipped inside the pack's one compressed block, so that no key reads back (test34 T2;
    one flipped bit alone the repair now finds and flips back, test34b T24); a flip deflate happens to read past
    unharmed (the values' times vary) is undone and tried at the next byte."""
    good = pack.read_bytes()
    for at in range(40, 60):
        b = bytearray(good)
        b[at] ^= 0x30
        pack.write_bytes(bytes(b))
        if mem("keys").stdout == "":
            return
    raise AssertionError("no flip in bytes 40-59 made every key unreadable")


def test_a_damaged_pack_is_called_damaged_and_the_loss_stays_said(mem, store_path):
    pack = _packed(mem, store_path)
    _flip_one_bit(mem, pack)
    warn = mem("keys").stderr
    assert f"pack file {pack.name} is damaged" in warn, warn
    assert "missing" not in warn and UNTRUE not in warn, warn
    assert "removes the refs of which nothing is" in warn and "lost-refs" in warn, warn

    rep = mem("fsck", "--repair", exit_code=None)
    assert "lost in all" in rep.stdout, rep.stdout
    # why one bit cost every key: the block is one DEFLATE stream, unreadable past the damage
    assert f"(pack {pack.name[5:21]}) came after the damage in their compressed block" in rep.stdout, rep.stdout
    got = mem("get", "project/k/key5", exit_code=13)
    assert "project/k/key5 was lost to damage: 'mem fsck --repair' removed it on " in got.stderr, got.stderr
    assert "mem pull REMOTE" in got.stderr, got.stderr
    assert "no key" not in got.stderr, got.stderr
    assert "no key project/k/never" in mem("get", "project/k/never", exit_code=4).stderr

    doc = mem("doctor", exit_code=1)
    assert "no problem found" not in doc.stdout, doc.stdout
    assert "error: [refs]" in doc.stdout and "facts/project/k/key5" in doc.stdout, doc.stdout


def test_a_pack_moved_away_with_its_idx_is_not_called_missing_with_a_promise(mem, store_path, tmp_path):
    _packed(mem, store_path)
    hold = tmp_path / "hold"
    hold.mkdir()
    for f in (store_path / "objects" / "pack").iterdir():
        shutil.move(f, hold / f.name)     # a USB disk, a sync not finished (test34 T3)

    warn = mem("keys").stderr
    assert "6 damaged refs" in warn and UNTRUE not in warn, warn
    # (since fil44, test43 T16: the pack the record names is said to be away, and what to do)
    assert "(and its .idx) missing from" in warn and "objects/info/packs records (moved away?)" in warn, warn
    assert "put the files back, then run 'mem fsck' again" in warn, warn
    assert "'mem fsck --repair' changes nothing while it is away" in warn, warn


def test_a_damaged_ref_file_is_called_a_damaged_ref_file(mem, store_path):
    pack = _packed(mem, store_path)
    ref = store_path / "refs" / "facts" / "project" / "k" / "key3"
    text = ref.read_text()
    ref.write_text(text[:5] + ("0" if text[5] != "0" else "1") + text[6:])   # one hex digit flipped

    warn = mem("keys").stderr
    assert "the ref file of facts/project/k/key3 is damaged" in warn, warn
    assert "pack" not in warn and UNTRUE not in warn, warn
    assert pack.exists()
    mem("fsck", "--repair")
    assert mem("get", "project/k/key3").stdout.strip() == "value 3 second"


def test_a_missing_pack_file_keeps_its_own_words(mem, store_path, tmp_path):
    pack = _packed(mem, store_path)
    shutil.move(pack, tmp_path / pack.name)    # the .idx stays: fsck33's case, whose promise is true
    warn = mem("keys").stderr
    assert f"pack file {pack.name} is missing (its index is intact): put it back; 'mem fsck --repair' keeps " \
           "every ref meanwhile" in warn, warn


def test_gc_never_calls_a_fresh_quarantine_folder_old(mem, store_path):
    """test34 T7: 'mem gc --prune=now' right after the repair said it deleted a folder seconds old as "older
    than the grace period".  The folder holds the lost keys' damaged data: kept while lost-refs names them (a
    forget of one deletes it: tests/cmds/test_quarantine_lost_refs.py), and never called old."""
    pack = _packed(mem, store_path)
    _flip_one_bit(mem, pack)
    mem("fsck", "--repair", exit_code=None)
    (folder,) = (store_path / "quarantine").iterdir()
    out = mem("gc", "--prune=now").stdout
    assert f"kept quarantine folder {folder.name}" in out and folder.is_dir(), out
    assert "older than the grace period" not in out, out
    (store_path / "lost-refs").unlink()   # the loss accepted
    out = mem("gc", "--prune=now").stdout
    assert "delete 1 quarantine folder (--prune=now: whatever their age)" in out, out
    assert not folder.exists()
