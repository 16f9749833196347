"""Peak memory of a ``mem proxy`` process that passes one long streamed
answer: the proxy of each source tree (``python -m cmds proxy`` run from
it, its own new store) in front of the loopback upstream of
``tests/integrations/test_proxy.py`` (mode ``huge``: MIB MiB of text
deltas, then ``message_stop``); the client reads the answer to its end,
then the proxy's ``VmHWM`` is read from ``/proc``.  Prints per tree the
bytes the client got and the peak RSS (docs/benchmarks.md, "Session 26
(branch ``mend26``)").

    python bench/proxy_answer_rss.py --tree base=/tmp/base --tree branch=. [--mib 192]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tests.integrations.test_proxy as rig  # noqa: E402  (the upstream and the proxy starter)


def peak_rss_kib(pid: int, field: str = "VmHWM") -> int:
    """``VmHWM`` (the peak RSS; or another ``field`` of its status, ``VmRSS``) of process ``pid`` in KiB."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


@contextmanager
def proxy_of(tree: Path):
    """A ``mem proxy`` of ``tree`` (``python -m cmds`` run from it) on a new
    store in front of a new loopback upstream: yields (process, url); both
    are stopped on exit."""
    rig.REPO = tree            # start_proxy runs `python -m cmds` from it
    tmp = Path(tempfile.mkdtemp(prefix="proxy-rss-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(tmp / "store"), HOME=str(tmp), PYTHONPATH=str(tree))
    up = rig.Upstream()
    proc, url = rig.start_proxy(env, up, tmp / "trace.jsonl")
    try:
        yield proc, url
    finally:
        proc.terminate()
        proc.wait(120)
        up.stop()


def one(tree: Path, mib: int) -> tuple[int, int]:
    """(bytes the client read, the proxy's peak RSS in KiB) for ``tree``."""
    with proxy_of(tree) as (proc, url):
        sid = f"huge-{uuid.uuid4().hex[:8]}"
        body = json.dumps({"model": "m", "max_tokens": 5, "stream": True,
                           "messages": [{"role": "user", "content": "a very long answer please"}]}).encode()
        c = http.client.HTTPConnection(url.removeprefix("http://"), timeout=300)
        c.request("POST", "/v1/messages", body=body,
                  headers={"x-api-key": rig.KEY, "content-type": "application/json", "anthropic-version": "2023-06-01",
                           "x-test-mode": "huge", "x-test-mib": str(mib), "x-test-tag": sid, "x-mem-session": sid})
        r = c.getresponse()
        n = 0
        for _ in range(1_000_000):          # bounded: reads of up to 1 MiB
            part = r.read(1 << 20)
            if not part:
                break
            n += len(part)
        c.close()
        time.sleep(5)                       # the capture runs after the answer ends
        return n, peak_rss_kib(proc.pid)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH", required=True)
    ap.add_argument("--mib", type=int, default=192, help="MiB of text in the answer (default 192)")
    a = ap.parse_args()
    for spec in a.tree:
        name, _, path = spec.partition("=")
        n, kib = one(Path(path).resolve(), a.mib)
        print(f"{name}: the client read {n:,} B; the proxy's peak RSS {kib:,} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
