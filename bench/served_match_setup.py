#!/usr/bin/env python3
"""Give a bench store RULES ``mem forget --match`` texts, as the forget writes
them (session 21, lane srv21): per text a ``text`` tombstone and one
``match:<session>`` tombstone for each of SESSIONS sessions of the store,
each text of a distinct length (``codename-1``, ``codename-02``, ...) and
held by no turn, so what ``bench/startup.py`` then measures is the serve-time
check (``tombstones.hider``: the tombstones read, each served snippet
hashed), not a redaction::

    python bench/served_match_setup.py STORE --rules 20 --sessions 2
    python bench/startup.py --store STORE --tree base=/tmp/srv21-base --tree branch=. \\
        --only search,recall,hook --runs 15

Idempotent (a tombstone is named by its content)."""

from __future__ import annotations

import argparse

from objstore.core.objects import Tombstone, value_digest
from objstore.core.store import now_ms
from objstore.memory.opening import open_store
from objstore.memory.tombstones import put_tombstone, text_tombstone


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("--rules", type=int, default=20)
    ap.add_argument("--sessions", type=int, default=2, help="match: tombstones per text (default 2)")
    a = ap.parse_args()
    s = open_store(a.store)
    sids = [name.split("/", 1)[1] for name, _oid in s.refs.iter("sessions")][:a.sessions]
    now = now_ms()
    with s.lock("forget"):
        for i in range(1, a.rules + 1):
            w = f"codename-{i:0{i}d}"
            put_tombstone(s, text_tombstone(value_digest(w), len(w), now))
            for sid in sids:
                put_tombstone(s, Tombstone(key=f"match:{sid}", value_sha256=value_digest(w), time=now,
                                           reason=f"match:{len(w)}"))
    print(f"{a.rules} match texts, {a.rules * (1 + len(sids))} tombstones, "
          f"{sum(1 for _ in s.refs.iter('tombstones'))} in the store")
    s.close()


if __name__ == "__main__":
    main()
