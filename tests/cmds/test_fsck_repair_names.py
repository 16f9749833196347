"""Session 22 (test22 X13): ``mem fsck --repair`` printed a ref whose file
name is not UTF-8 with a raw replacement character (``bad\ufffd``), where
``mem fsck``, ``keys`` and every other command show ``bad\\udcff``
(``cmds._out.safe``).  A real ref file with a non-UTF-8 name, real ``mem``."""

from __future__ import annotations

import os

from objstore import remember
from objstore.memory.opening import open_store


def test_fsck_repair_shows_a_non_utf8_ref_name_as_every_command_does(mem, store_path):
    with open_store(store_path, create=True) as s:
        remember(s, "project/p/b", "a value")
    d = os.fsencode(store_path / "refs" / "facts" / "project" / "p")
    with open(os.path.join(d, b"b"), "rb") as f, open(os.path.join(d, b"bad\xff"), "wb") as g:
        g.write(f.read())
    assert "facts/project/p/bad\\udcff" in mem("fsck", exit_code=13).stdout
    out = mem("fsck", "--repair").stdout
    assert "removed facts/project/p/bad\\udcff: nothing of it could be read" in out, out
    assert "\ufffd" not in out
