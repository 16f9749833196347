"""test43 T20: a FIFO in place of ``seal-rules``, ``tombstone-digests`` or ``hash-key`` made ``mem fsck`` (and
doctor, and every ``remember`` for ``seal-rules``) wait forever on the pipe.  Each is now read as a regular file
only (``core.atomic.read_regular``): a FIFO is damage, said at once.  Real ``mem`` processes."""

from __future__ import annotations

import os

import pytest

PERSON = {"MEM_AGENT": "0"}


@pytest.mark.parametrize("name", ["seal-rules", "tombstone-digests", "hash-key"])
def test_a_fifo_in_place_of_a_rule_file_never_hangs_a_command(mem, tmp_path, name):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/door/code", "kestrel-5517-harbor", "--sensitivity", "secret", env=PERSON)
    mem(*h, "forget", "--match", "Zephyrine Quillborough", "--yes", env=PERSON)
    (home / name).unlink()
    os.mkfifo(home / name)
    mem(*h, "fsck", exit_code=13, timeout=60)
    mem(*h, "doctor", exit_code=1, timeout=60)
    mem(*h, "remember", "project/a/b", "a value", env=PERSON, exit_code=None, timeout=60)
    r = mem(*h, "remember", "project/a/c", "Zephyrine Quillborough owns it", env={"MEM_AGENT": "claude"},
            exit_code=None, timeout=60)
    assert r.exit_code != 0, r.stdout   # never written in the clear
