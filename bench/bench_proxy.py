"""What `mem proxy` adds to a Messages API request, on a real store.

An upstream stub on loopback answers at once; the same requests go to it
directly and through `mem proxy` (a real process on the given store),
interleaved, over kept-alive connections.  Reported: p50/p95 of each path and
of the difference, per kind of request (the first request of a conversation
renders the pinned block; a follow-up with a new prompt runs the recall
gate; a tool-result turn only re-adds blocks and captures).

    python bench/bench_proxy.py --store /tmp/mem-bench-store [--corpus /tmp/bench-corpus] [-n 60]

With --corpus and an empty --store, the corpus is imported first.  Needs
the proxy extra (aiohttp).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROMPTS = ["the flaky database fixture again: which postgres do we run locally?",
           "why does the auth token refresh fail in CI?", "where is the retry logic for the payment webhook?",
           "what port does the api listen on in staging?", "rename the config loader and update the tests"]


def _port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def upstream(port: int) -> None:
    from aiohttp import web

    async def msgs(req):
        j = json.loads(await req.read())
        return web.json_response({"id": "m", "type": "message", "role": "assistant", "model": j.get("model", "m"),
                                  "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                                  "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})

    app = web.Application(client_max_size=64 << 20)
    app.router.add_post("/v1/messages", msgs)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
    loop.run_forever()


def post(conn: http.client.HTTPConnection, body: dict, headers: dict) -> float:
    data = json.dumps(body).encode()
    t = time.perf_counter()
    conn.request("POST", "/v1/messages", body=data, headers={"content-type": "application/json", **headers})
    r = conn.getresponse()
    r.read()
    assert r.status == 200, r.status
    return (time.perf_counter() - t) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("-n", type=int, default=60, help="conversations (each: start, tool turn, follow-up)")
    a = ap.parse_args()
    env = {**os.environ, "MEM_HOME": a.store}
    if a.corpus and not (Path(a.store) / "config").exists():
        print(f"importing {a.corpus} into {a.store} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", a.corpus], env=env, check=True,
                       cwd=REPO, stdout=subprocess.DEVNULL)
    up, px = _port(), _port()
    threading.Thread(target=upstream, args=(up,), daemon=True).start()
    proc = subprocess.Popen([sys.executable, "-m", "cmds", "proxy", "--listen", f"127.0.0.1:{px}",
                             "--upstream", f"http://127.0.0.1:{up}"], env=env, cwd=REPO,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", px, timeout=2)
                c.request("GET", "/mem/health")
                if c.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise SystemExit("proxy did not start")
            time.sleep(0.1)
        direct = http.client.HTTPConnection("127.0.0.1", up, timeout=30)
        via = http.client.HTTPConnection("127.0.0.1", px, timeout=30)
        system = [{"type": "text", "text": "You are Claude Code."},
                  {"type": "text", "text": "Working directory: /home/dev/acme-api", "cache_control": {"type": "ephemeral"}}]
        rows: dict[str, list[tuple[float, float]]] = {"start": [], "tool turn": [], "follow-up": []}
        for i in range(a.n):
            h = {"x-api-key": "sk-bench", "x-mem-session": f"bench-{os.getpid()}-{i}"}
            m1 = [{"role": "user", "content": PROMPTS[i % len(PROMPTS)] + f" ({i})"}]
            m2 = m1 + [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Read",
                                                          "input": {"path": "x.py"}}]},
                       {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                                     "content": "def f(): pass\n" * 40}]}]
            m3 = m2 + [{"role": "assistant", "content": "done"},
                       {"role": "user", "content": PROMPTS[(i + 2) % len(PROMPTS)]}]
            for kind, msgs in (("start", m1), ("tool turn", m2), ("follow-up", m3)):
                body = {"model": "m", "max_tokens": 10, "system": system, "messages": msgs}
                d = post(direct, body, h)
                p = post(via, body, h)
                rows[kind].append((d, p))
        print(f"{'request':<10} {'direct p50':>11} {'proxy p50':>10} {'overhead p50':>13} {'overhead p95':>13}")
        for kind, xs in rows.items():
            over = sorted(p - d for d, p in xs)
            p95 = over[min(len(over) - 1, int(len(over) * 0.95))]
            print(f"{kind:<10} {statistics.median(d for d, _ in xs):>9.1f}ms {statistics.median(p for _, p in xs):>8.1f}ms"
                  f" {statistics.median(over):>11.1f}ms {p95:>11.1f}ms")
        alls = sorted(p - d for xs in rows.values() for d, p in xs)
        print(f"all requests: overhead p50 {statistics.median(alls):.1f} ms over {len(alls)} requests")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
