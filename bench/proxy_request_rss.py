"""Memory of a ``mem proxy`` process for large and refused requests (test26b
W9): the proxy of each source tree (``python -m cmds proxy`` run from it,
its own new store) in front of the loopback upstream of
``tests/integrations/test_proxy.py``, one new proxy per case:

* ``prompt``: one ``POST /v1/messages`` of ``--mib`` MiB of plain words in
  one user message; the proxy's peak RSS (``VmHWM``) and its ratio to the
  body's size;
* ``bomb``: ``--times`` requests of a ~400 KB gzip body that decodes to
  400 MiB of JSON; each status and the proxy's RSS (``VmRSS``) after it;
* ``upload``: ``--times`` requests of 300 MB sent with their
  ``Content-Length`` (the client stops sending when the proxy answers);
  each status and the RSS after it;
* ``expect``: a 300 MB ``Content-Length`` with ``Expect: 100-continue``:
  the first status line the proxy sends (``100`` then reading the body, or
  a ``413`` at once).

Prints one line per tree and case (docs/benchmarks.md, "Session 27 (branch
``prx27``)").

    python bench/proxy_request_rss.py --tree base=/tmp/base --tree branch=. [--mib 10] [--times 3]
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tests.integrations.test_proxy as rig  # noqa: E402  (the upstream and the proxy starter)
from bench.proxy_answer_rss import peak_rss_kib, proxy_of  # noqa: E402  (one new proxy of a tree, its RSS)

H = {"x-api-key": rig.KEY, "content-type": "application/json", "anthropic-version": "2023-06-01"}
WORDS = "apple banana cherry dolphin eagle falcon garnet harbor island jungle kettle lemon mango nectar".split()


def prompt_body(mib: int) -> bytes:
    """A Messages request of ``mib`` MiB of random words in one user message."""
    rnd = random.Random(27)
    words = " ".join(rnd.choice(WORDS) for _ in range((mib << 20) // 7))
    return json.dumps({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": words}]}).encode()


def bomb_body() -> bytes:
    """~400 KB of gzip that decodes to 400 MiB of one JSON request."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [c.compress(b'{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"')]
    block = b"a" * (1 << 20)
    out += [c.compress(block) for _ in range(400)]
    out += [c.compress(b'"}]}'), c.flush()]
    return b"".join(out)


def send(url: str, headers: dict, body: bytes | None = None, size: int = 0, expect: bool = False) -> str:
    """One POST to the proxy over a raw socket: ``body``, or ``size`` bytes
    of filler sent a MiB at a time (stopped when the proxy answers or closes);
    with ``expect`` only the headers, then the first status line.  Returns
    the status code, or ``reset`` when the connection dropped first."""
    host, port = url.removeprefix("http://").split(":")
    n = len(body) if body is not None else size
    head = [f"POST /v1/messages HTTP/1.1", f"Host: {host}:{port}", f"Content-Length: {n}"]
    head += [f"{k}: {v}" for k, v in headers.items()] + (["Expect: 100-continue"] if expect else [])
    s = socket.create_connection((host, int(port)), timeout=600)
    try:
        s.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        if not expect:
            if body is not None:
                s.sendall(body)
            else:
                chunk, sent = b"{" + b" " * ((1 << 20) - 1), 0
                s.settimeout(0.0)
                for _ in range(n // len(chunk) + 1):   # bounded: the body's MiB
                    try:
                        if s.recv(1, socket.MSG_PEEK):
                            break                       # the proxy answered: stop sending
                    except BlockingIOError:
                        pass
                    s.settimeout(600)
                    s.sendall(chunk[: n - sent])
                    sent += min(len(chunk), n - sent)
                    s.settimeout(0.0)
                    if sent >= n:
                        break
                s.settimeout(600)
        line = s.makefile("rb").readline()
        return line.split()[1].decode() if line else "reset"
    except (ConnectionResetError, BrokenPipeError):
        return "reset"
    finally:
        s.close()


def one(tree: Path, case: str, a) -> str:
    """The figures of ``case`` for the proxy of ``tree``, as one line."""
    with proxy_of(tree) as (proc, url):
        idle = peak_rss_kib(proc.pid, "VmRSS")
        if case == "prompt":
            body = prompt_body(a.mib)
            t = time.monotonic()
            st = send(url, {**H, "x-mem-session": "rss-prompt"}, body)
            secs = time.monotonic() - t
            hwm = peak_rss_kib(proc.pid, "VmHWM")
            return (f"prompt {len(body):,} B: {st} in {secs:.1f} s; idle {idle:,} kB, peak {hwm:,} kB "
                    f"({(hwm - idle) * 1024 / len(body):.1f}x the body above idle)")
        if case == "expect":
            return f"expect 300 MB: first status {send(url, H, size=300_000_000, expect=True)}; idle {idle:,} kB"
        got = []
        for i in range(a.times):
            if case == "bomb":
                st = send(url, {**H, "content-encoding": "gzip", "x-mem-session": f"rss-bomb{i}"}, bomb_body())
            else:
                st = send(url, {**H, "x-mem-session": f"rss-up{i}"}, size=300_000_000)
            time.sleep(2)
            got.append(f"{st} -> {peak_rss_kib(proc.pid, 'VmRSS'):,} kB")
        return f"{case} x{a.times}: idle {idle:,} kB; " + ", ".join(got) + \
            f"; peak {peak_rss_kib(proc.pid, 'VmHWM'):,} kB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH", required=True)
    ap.add_argument("--mib", type=int, default=10, help="MiB of the prompt case's body (default 10)")
    ap.add_argument("--times", type=int, default=3, help="requests of the bomb and upload cases (default 3)")
    ap.add_argument("--case", action="append", choices=["prompt", "bomb", "upload", "expect"],
                    help="the cases to run (default: all)")
    a = ap.parse_args()
    for case in a.case or ["prompt", "bomb", "upload", "expect"]:
        for spec in a.tree:          # the trees one after the other per case: interleaved
            name, _, path = spec.partition("=")
            print(f"{name}: {one(Path(path).resolve(), case, a)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
