#!/usr/bin/env python3
"""CPU seconds of reading a store's largest packs in body order, as a
forget's pack copy does (``Store._copy_pack``): every block
(``Pack.raw_blocks_in_body_order``) and the first 2,000 frames (its
dictionary check, ``frames_in_body_order``).  Read only.

Usage::

    PYTHONPATH=<tree> python bench/pack_body_order.py HOME [PACKS]   # PACKS: how many (default 3)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from objstore.memory.opening import open_store


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    store = open_store(Path(argv[0]))
    store.packs.reload()
    for p in sorted(store.packs.packs, key=lambda p: -len(p))[:int(argv[1]) if len(argv) > 1 else 3]:
        t = time.process_time()
        blocks = sum(1 for _ in p.raw_blocks_in_body_order())
        t1 = time.process_time() - t
        t = time.process_time()
        n = 0
        for _oid, _frame in p.frames_in_body_order():
            n += 1
            if n >= 2000:
                break
        t2 = time.process_time() - t
        print(f"pack v{p.version}, {len(p)} objects, {blocks} blocks: raw_blocks_in_body_order {t1:.3f} s, "
              f"first {n} frames {t2:.3f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
