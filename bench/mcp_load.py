"""Load on the MCP HTTP server: C clients x N calls (3 reads : 1 write) against
one ``mem serve`` while a prompt hook and ``mem gc`` run in loops beside it.

Each client has its own agent key and one SDK ``ClientSession`` over
streamable HTTP; every call's wall time is recorded at the client.  At the
end every write is read back (no lost write) and the figures printed:

    python bench/mcp_load.py                       # 8 x 200 on a fresh small store
    python bench/mcp_load.py --home ~/.mem-bench   # on an existing store (e.g. the 300-session one)
    python bench/mcp_load.py --clients 8 --calls 25 --json

Exit status 0 when there was no error and no lost write, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUERIES = ["which database port", "deploy steps", "what editor", "flaky auth test", "release checklist"]


def _mem(home: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, input=input,
                          cwd=REPO, env={**os.environ, "MEM_HOME": str(home)}, timeout=120)


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]


def run(home: Path, clients: int = 8, calls: int = 200, side: bool = True, seed: bool = True) -> dict:
    """Run the load; returns ``{"latency_ms": {tool: {p50, p99, n}}, "errors": [...], "lost": [...],
    "hook_runs": n, "gc_runs": n, "seconds": s}``."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from objstore import open_store, mcp_keys_path, mint_mcp_key, remember
    if seed:
        with open_store(home, create=True) as store:
            for i, q in enumerate(QUERIES):
                remember(store, f"project/load/fact{i}", f"{q}: answer {i}")
    keys = [mint_mcp_key(mcp_keys_path(home), f"load-{c}-{time.time_ns()}", "agent")[0] for c in range(clients)]
    srv = subprocess.Popen([sys.executable, "-m", "cmds", "serve", "--listen", "127.0.0.1:0", "--rate", "1000000",
                            "--write-rate", "1000000"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                           cwd=REPO, env={**os.environ, "MEM_HOME": str(home)})
    url = None
    while url is None:
        line = srv.stderr.readline()
        if not line:
            raise RuntimeError("mem serve did not start")
        m = re.search(r"listening on (http://\S+/mcp)", line)
        url = m.group(1) if m else None
    threading.Thread(target=lambda: [None for _ in iter(srv.stderr.readline, "")], daemon=True).start()
    stop = threading.Event()
    counts = {"hook": 0, "gc": 0}
    side_errors: list[str] = []

    def loop(name: str, args: list[str], stdin: str | None) -> None:
        while not stop.is_set():
            p = _mem(home, *args, input=stdin)
            if p.returncode != 0:
                side_errors.append(f"{name}: exit {p.returncode} {p.stderr[-300:]}")
            counts[name] += 1
    threads = []
    if side:
        ev = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "load-hook", "cwd": str(home),
                         "prompt": "which database port do we use"})
        threads = [threading.Thread(target=loop, args=("hook", ["hook", "claude-code"], ev), daemon=True),
                   threading.Thread(target=loop, args=("gc", ["gc"], None), daemon=True)]
        for t in threads:
            t.start()
    lat: dict[str, list[float]] = {}
    errors: list[str] = []
    written: list[tuple[str, str]] = []

    async def client(c: int) -> None:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {keys[c]}"})
        async with http, streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                for i in range(calls):
                    if i % 4 == 3:
                        key, value = f"project/load/c{c}/k{i}", f"value {c}-{i}"
                        name, args = "remember", {"key": key, "value": value}
                    elif i % 4 == 1:
                        name, args = "get", {"key": f"project/load/fact{i % len(QUERIES)}"}
                    else:
                        name, args = "recall", {"queries": [QUERIES[(c + i) % len(QUERIES)]], "all_projects": True}
                    t0 = time.perf_counter()
                    try:
                        res = await s.call_tool(name, args)
                    except Exception as e:  # noqa: BLE001 - counted, reported
                        errors.append(f"{name}: {e!r}")
                        continue
                    lat.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
                    if res.is_error:
                        errors.append(f"{name}: {res.content[0].text[:200]}")
                    elif name == "remember":
                        written.append((key, value))

    t0 = time.perf_counter()
    try:
        # one thread per client: each its own event loop, so clients really run at once
        ths = [threading.Thread(target=lambda c=c: anyio.run(client, c)) for c in range(clients)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        seconds = time.perf_counter() - t0
    finally:
        stop.set()
        for t in threads:
            t.join(120)
    lost = []
    try:
        from objstore import current
        with open_store(home) as store:
            for key, value in written:
                try:
                    if current(store, key).fact.body != value:
                        lost.append(key)
                except Exception:  # noqa: BLE001
                    lost.append(key)
    finally:
        srv.terminate()
        srv.wait(10)
    return {"clients": clients, "calls": calls, "seconds": round(seconds, 2),
            "latency_ms": {k: {"n": len(v), "p50": round(statistics.median(v), 2), "p99": round(_pct(v, 99), 2)}
                           for k, v in sorted(lat.items())},
            "all_ms": {"p50": round(statistics.median(sum(lat.values(), [])), 2),
                       "p99": round(_pct(sum(lat.values(), []), 99), 2)} if lat else {},
            "writes": len(written), "lost": lost, "errors": errors + side_errors,
            "hook_runs": counts["hook"], "gc_runs": counts["gc"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, help="an existing store (default: a fresh one in a temp dir)")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--no-side", action="store_true", help="no hook and gc loops beside the load")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = a.home or Path(tmp) / "store"
        res = run(home, a.clients, a.calls, side=not a.no_side, seed=a.home is None)
    if a.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"{a.clients} clients x {a.calls} calls in {res['seconds']} s; writes {res['writes']}, "
              f"lost {len(res['lost'])}, errors {len(res['errors'])}; hook runs {res['hook_runs']}, "
              f"gc runs {res['gc_runs']}")
        print("| tool | calls | p50 ms | p99 ms |\n|---|---|---|---|")
        for k, v in res["latency_ms"].items():
            print(f"| {k} | {v['n']} | {v['p50']} | {v['p99']} |")
        for e in res["errors"][:10]:
            print("error:", e)
    return 0 if not res["errors"] and not res["lost"] else 1


if __name__ == "__main__":
    sys.exit(main())
