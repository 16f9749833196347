"""CPU of listing the session refs of a large ``refs/packed-sessions``
(session 25, mend25): the file is written with N UUID lines (default
24,000, about the sessions of 2M turns), then ``Refs.iter("sessions")`` is
run in a new ``Refs`` each time (the parse of the file and the listing), and
the median process CPU of ``--runs`` is printed.  Run it with each tree to
compare (``PYTHONPATH`` is set from the tree given)::

    python bench/packed_refs_listing.py /tmp/base-tree
    python bench/packed_refs_listing.py .
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", help="the source tree whose objstore is measured")
    ap.add_argument("--lines", type=int, default=24000, help="session lines in the packed file")
    ap.add_argument("--runs", type=int, default=15, help="listings timed (the median is printed)")
    a = ap.parse_args()
    sys.path.insert(0, str(Path(a.tree).resolve()))
    import objstore
    from objstore.core.refs import Refs
    assert objstore.__file__.startswith(str(Path(a.tree).resolve())), objstore.__file__
    rnd = random.Random(1)
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "refs"
        root.mkdir()
        lines = sorted(f"{'a' * 64} {uuid.UUID(int=rnd.getrandbits(128))}\n" for _ in range(a.lines))
        (root / "packed-sessions").write_text("".join(lines))
        ts, n = [], 0
        for _ in range(max(1, min(a.runs, 1000))):
            refs = Refs(root)
            t = time.process_time()
            n = sum(1 for _ in refs.iter("sessions"))
            ts.append(time.process_time() - t)
    print(f"{a.tree}: {n} sessions listed, median {statistics.median(ts) * 1000:.1f} ms CPU of {len(ts)}")


if __name__ == "__main__":
    main()
