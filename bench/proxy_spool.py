"""What the proxy's capture spool costs for one batch (test28 Y9, session 29).

Every capture batch of ``mem proxy`` is written to ``cache/proxy-spool``
(JSON, fsynced) before it is stored, and read back by the drain.  This
builds the ``--mb`` MB "conversation" request of ``bench/proxy_lock.py``,
runs the proxy's request preparation on a fresh store, and times the spool
file's write (``objstore.core.spool.write_record``, with its fsync) and
its read (``objstore.integrations.proxyspool.spooled_batches``); the
median of ``--runs`` fresh stores.  The rest of the capture (redaction,
objects, publish, index) is what ``bench/proxy_lock.py`` measures.

    python bench/proxy_spool.py --mb 20 [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from proxy_lock import bodies  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    from objstore.core import spool
    from objstore.integrations import proxy as P
    from objstore.integrations.proxyspool import TURN_FIELDS, spooled_batches
    from objstore.memory.opening import open_store
    body = bodies(a.mb)["conversation"]
    writes, reads, size, turns = [], [], 0, 0
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory(prefix="proxy-spool-") as d:
            s = open_store(d, create=True)
            prep = P.prepare(s, body, {"x-mem-session": "bench-1"})
            rows = [{f: getattr(t, f) for f in TURN_FIELDS} for t in prep.pending]
            t0 = time.perf_counter()
            p = spool.write_record(s.root / spool.PROXY_SPOOL_DIR / "bench.json", {"spooled": 0.0, "turns": rows})
            writes.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            spooled_batches(s.root)
            reads.append(time.perf_counter() - t0)
            size, turns = p.stat().st_size, len(rows)
            s.close()
    print(f"conversation {len(body) / (1 << 20):5.1f} MB  {turns} turns  spool file {size / 1e6:.1f} MB  "
          f"write+fsync {statistics.median(writes) * 1000:.0f} ms  read {statistics.median(reads) * 1000:.0f} ms "
          f"(median of {a.runs})")


if __name__ == "__main__":
    main()
