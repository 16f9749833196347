"""A tantivy temp file of a live index commit is no leftover (test31c W18):
``mem remember`` answers, then commits the search index in a detached
child under the sub-index's writer lock (not the store lock), so a ``mem
fsck`` right after warned of "a temp file left by an interrupted write"
that was gone a moment later, and advised ``mem gc``, which deleted it.
Now a ``.tmp*`` file of a sub-index whose ``LOCK`` a live process flocks
is neither named nor deleted; once the lock is free it is a leftover.
Real files, a real ``flock`` held by this process, real ``mem``."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def test_a_temp_file_of_a_locked_sub_index_is_a_live_writers(mem):
    mem("remember", "project/api/port", "port 9001")
    home = Path(os.environ["MEM_HOME"])
    sub = home / "index" / "facts"
    gen = next(sub.glob("gen-*"))
    tmp = gen / ".tmpAbCdEf"
    tmp.write_bytes(b"a segment being written")
    fd = os.open(sub / "LOCK", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)   # as a committing writer holds it
        assert "temp file" not in mem("fsck").stdout
        assert "temp file" not in mem("doctor", exit_code=None).stdout
        mem("gc", "--prune=now")
        assert tmp.exists()   # a live writer's: never deleted
    finally:
        os.close(fd)
    r = mem("fsck")
    assert "a temp file left by an interrupted write: index/facts/" in r.stdout, r.stdout
    mem("gc", "--prune=now")
    assert not tmp.exists()
