"""mend22: the serve-time gate (``objstore.memory.served.hider``) lists
``refs/tombstones/`` and hands that listing to
``tombstones.served_rules``, which listed the folder a second time with its
own copy of the name filter.  One listing now, one filter
(``served.tombstone_names``); counted with the interpreter's audit events on
a real store."""

from __future__ import annotations

import sys

from objstore.core.objects import Tombstone, normalize_value, value_digest
from objstore.memory import served
from objstore.memory.opening import open_store
from objstore.memory.tombstones import put_tombstone, served_rules, text_tombstone

_LISTED: list[str] = []
_COUNTING: list[bool] = [False]


def _audit(event, args):
    if _COUNTING[0] and event in ("os.listdir", "os.scandir") and str(args[0]).endswith("tombstones"):
        _LISTED.append(event)


sys.addaudithook(_audit)   # cannot be removed: it counts only while _COUNTING holds True


def _listings(fn):
    _LISTED.clear()
    _COUNTING[0] = True
    try:
        out = fn()
    finally:
        _COUNTING[0] = False
    return out, list(_LISTED)


def test_the_gate_lists_the_tombstones_once_and_serves_the_same_rules(tmp_path):
    s = open_store(tmp_path / "store", create=True)
    try:
        hide, listed = _listings(lambda: served.hider(s))
        assert hide is None and len(listed) == 1
        n = normalize_value("wombat saffron 7731")
        put_tombstone(s, text_tombstone(value_digest(n), len(n), 1))
        put_tombstone(s, Tombstone(key="user/editor", value_sha256=value_digest("vim"), time=1))
        (s.refs.root / "tombstones" / ".tmp-writer").write_text("x")     # a writer's file, not a ref
        (s.refs.root / "tombstones" / "zz.lock").write_text("x")
        for fresh in (False, True):   # the derived cache/match-rules file written (every tombstone read), then read
            hide, listed = _listings(lambda: served.hider(s))
            assert len(listed) == (1 if fresh else 2), listed   # main: a scandir and a listdir when fresh
            assert hide is not None and hide.rules == served_rules(s, served.tombstone_names(s)) == [(value_digest(n), len(n))]
            assert hide.text("the codename: Wombat  Saffron 7731.") == "the codename: [forgotten]."
        assert served.tombstone_names(s) == sorted(p.name for p in (s.refs.root / "tombstones").iterdir()
                                                   if p.name not in (".tmp-writer", "zz.lock"))
    finally:
        s.close()
