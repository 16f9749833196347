#!/usr/bin/env python3
"""CPU of the first read of one packed ref in a process (issue 12,
"Start-up"; docs/benchmarks.md, "Session 20 (branch `lat20`)").

Writes ``DIR/packed-sessions`` with ``N`` session refs (random ids, sorted
names, as an import's bulk publish writes them; kept for the next run), then
reads 50 of them, each through a new ``objstore.core.refs.Refs`` (as a new
``mem`` process does), and prints the mean ``time.process_time`` per read in
ms.  Run it once per tree with ``PYTHONPATH`` set to the tree::

    PYTHONPATH=/tmp/base python bench/packed_ref_read.py /tmp/pr/1000 1000
    PYTHONPATH=.         python bench/packed_ref_read.py /tmp/pr/1000 1000
"""

from __future__ import annotations

import os
import random
import sys
import time
import uuid
from pathlib import Path

from objstore.core.refs import Refs


def main(argv: list[str]) -> int:
    """``argv``: DIR N.  Prints one line; returns 0."""
    root, n = Path(argv[0]), int(argv[1])
    packed = root / "packed-sessions"
    if not packed.exists():
        root.mkdir(parents=True, exist_ok=True)
        rnd = random.Random(1)
        names = sorted(str(uuid.UUID(int=rnd.getrandbits(128))) for _ in range(n))
        packed.write_text("".join(f"{os.urandom(32).hex()} {x}\n" for x in names))
    names = [ln.split(" ", 1)[1] for ln in packed.read_text().splitlines()]
    pick = names[::max(1, len(names) // 50)]
    t = time.process_time()
    for name in pick:
        assert Refs(root).read(f"sessions/{name}") is not None
    print(f"{len(names)} packed refs: {(time.process_time() - t) / len(pick) * 1000:.3f} ms per first read")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
