"""fresh6 findings on the store (notes/fresh6-attack.md 16, 17, 25, 7, 9, 19,
21): each test runs real ``mem`` processes on real stores and failed on the
code before its fix."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


# -- 16: a damaged index-journal record ----------------------------------------

def test_torn_multibyte_journal_tail_blocks_nothing(mem, store_path):
    mem("init")
    mem("remember", "project/u/k1", "value number 1", env=PERSON)
    with open(store_path / "index-journal", "ab") as f:
        f.write(b"\xc3")                       # half of an e-acute: a torn append
    r = mem("fsck", exit_code=13)
    assert "index-journal" in r.stdout and "--repair" in r.stdout
    mem("remember", "project/u/k5", "new", env=PERSON)        # was: internal error UnicodeDecodeError
    mem("forget", "project/u/k1", "--yes", env=PERSON)
    mem("reindex")
    mem("fsck")


def test_damaged_journal_record_is_reported_and_repaired(mem, store_path):
    mem("init")
    mem("remember", "project/u/k1", "value number one", env=PERSON)
    # a damaged record between two sound ones: what it named is unknown
    with open(store_path / "index-journal", "ab") as f:
        f.write(b"F\tproject/u/k1\n\xc3\xff\tbroken\nF\tproject/u/zz\n")
    r = mem("fsck", exit_code=13)
    assert "1 damaged record" in r.stdout
    mem("fsck", "--repair")
    assert (store_path / "index-journal").stat().st_size == 0
    assert list((store_path / "quarantine").glob("*/index-journal"))      # set aside for a person's eye
    assert "value number one" in mem("search", "value number").stdout
    mem("fsck")
    # a write is not blocked either: the next lock holder rebuilds the index
    with open(store_path / "index-journal", "ab") as f:
        f.write(b"\xff\xfe\n")
    mem("remember", "project/u/k2", "second value", env=PERSON)
    assert (store_path / "index-journal").stat().st_size == 0
    assert "second value" in mem("search", "second value").stdout
