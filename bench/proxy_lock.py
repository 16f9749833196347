"""How long the proxy's capture writer holds the store lock for one batch.

The request of a conversation the proxy sees for the first time carries
every earlier message, and its turns are one capture batch
(``objstore.integrations.proxy.capture_turns``, what the proxy's background
writer calls).  This builds such a body of ``--mb`` MB in two shapes (one
user text of that size; a conversation of user texts, assistant texts and
4,000-character tool results adding up to it), runs the proxy's request
preparation and then its capture of the batch in process on a fresh store,
and reports the wall time of the capture and the time the store lock was
held during it (``StoreLock`` acquire to release, measured by wrapping both
methods; the median of ``--runs`` fresh stores).

    python bench/proxy_lock.py --mb 20 [--runs 3] [--tree /path/to/other/checkout]

``--tree``: import ``objstore`` from another checkout (e.g. ``git worktree
add /tmp/old main``) to measure the code before a change the same way.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time


def bodies(mb: int) -> dict[str, bytes]:
    size = mb << 20
    one = "lorem ipsum " * (size // 12)
    msgs, n, i = [], 0, 0
    while n < size:
        tid = f"toolu_{i:06d}"
        text = f"step {i}: look at module {i % 97} and tell me what changed " * 8
        answer = f"module {i % 97} changed its retry policy; checking the callers next " * 6
        out = (f"line {i}: " + "x" * 60 + "\n") * 55          # ~4,000 characters
        msgs += [{"role": "user", "content": text},
                 {"role": "assistant", "content": [{"type": "text", "text": answer},
                                                   {"type": "tool_use", "id": tid, "name": "Read",
                                                    "input": {"file_path": f"/src/m{i}.py"}}]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": out}]}]
        n += len(text) + len(answer) + len(out)
        i += 1
    msgs.append({"role": "user", "content": "so what should we change first?"})
    mk = lambda m: json.dumps({"model": "m", "max_tokens": 5, "messages": m}).encode()  # noqa: E731
    return {"one text": mk([{"role": "user", "content": one}]), "conversation": mk(msgs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", help="import objstore from this checkout")
    a = ap.parse_args()
    if a.tree:
        sys.path.insert(0, a.tree)
    from objstore.core import lock as L
    from objstore.integrations import proxy as P
    from objstore.memory.opening import open_store

    held: list[float] = []
    acquire, release = L.StoreLock.acquire, L.StoreLock.release

    def acq(self):
        acquire(self)
        if self.depth == 1:
            self._t0 = time.perf_counter()

    def rel(self):
        outer = self.depth == 1
        release(self)
        if outer:
            held.append(time.perf_counter() - self._t0)

    L.StoreLock.acquire, L.StoreLock.release = acq, rel
    print(f"objstore from {P.__file__}")
    for shape, body in bodies(a.mb).items():
        walls, holds, turns = [], [], 0
        for _ in range(a.runs):
            with tempfile.TemporaryDirectory(prefix="proxy-lock-") as d:
                s = open_store(d, create=True)
                prep = P.prepare(s, body, {"x-mem-session": "bench-1"})
                held.clear()
                t0 = time.perf_counter()
                turns = P.capture_turns(s, prep.pending)
                walls.append(time.perf_counter() - t0)
                holds.append(sum(held))
                s.close()
        print(f"{shape:13s} {len(body) / (1 << 20):5.1f} MB  {turns:5d} turns  capture "
              f"{statistics.median(walls):6.2f} s  store lock held {statistics.median(holds) * 1000:8.1f} ms "
              f"(median of {a.runs}; max {max(holds) * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
