#!/usr/bin/env python3
"""Latency of ``mem hook claude-code`` (UserPromptSubmit) on a big store.

Builds (once, cached under ``--work``) a store of at least ``--min-turns``
turns by generating a corpus with ``bench/gen_corpus.py`` and importing it,
plus ``--facts`` facts; then plays prompt cycles against one long session of
the corpus, the way Claude Code does: the transcript gets the prompt record
and an answer, a Stop hook syncs it (not timed), and the next prompt's
UserPromptSubmit hook is timed as a new process of the installed ``mem``
script, stdin JSON to exit.  In the same run, for reference: a bare
``python -c pass`` and ``mem --version``, and the hook with capture only
(``MEM_NO_INJECT=1``) and injection only (``MEM_NO_CAPTURE=1``), interleaved
so that load from other processes falls on all alike.  The hook's capture
runs in a forked child; its wall time is not in the hook's, its CPU time is
not in "CPU" (only the waited-for process is counted).

    python bench/bench_hook.py                      # 100k+ turns, 40 samples
    python bench/bench_hook.py --samples 80 --work /tmp/mem-bench-hook

Prints a Markdown table and writes ``WORK/hook-results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROMPTS = [
    "why does the login test fail on CI but not locally?",
    "add retries to the upload client, 3 attempts with backoff",
    "which port does the api use in staging?",
    "refactor the config loader so env vars override the toml file",
    "explain what the cache invalidation in worker.py does",
    "run the migrations and tell me what changed in the schema",
    "the docker build is slow, can we cache the pip layer?",
    "write a test for the rate limiter edge case at the window boundary",
]


def _run(cmd: list[str], *, env: dict, stdin: bytes | None = None) -> tuple[float, float, int]:
    """(wall seconds, child CPU seconds, exit code) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.returncode


def _store_turns(store: Path) -> int:
    sys.path.insert(0, str(REPO))
    from objstore.memory.sessions import list_sessions
    from objstore.memory.opening import open_store
    with open_store(store) as s:
        return sum(x.turns for x in list_sessions(s))


def build(work: Path, min_turns: int, facts: int, mem: list[str], env: dict) -> dict:
    corpus, store = work / "corpus", work / "store"
    meta = work / "built.json"
    if meta.exists() and store.exists():
        return json.loads(meta.read_text())
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    gen_turns = max(1000, min_turns // 2)        # each generated turn also brings ~1 tool result
    t0 = time.perf_counter()
    subprocess.run([sys.executable, str(REPO / "bench" / "gen_corpus.py"), str(corpus), "--sessions",
                    str(max(10, gen_turns // 170)), "--turns", str(gen_turns), "--scale-bytes",
                    f"{max(20, gen_turns // 400)}MB", "-q", "--seed", "5"], check=True)
    subprocess.run([*mem, "import", "claude-code", str(corpus)], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    sys.path.insert(0, str(REPO))
    from objstore.memory.facts import remember
    from objstore.memory.opening import open_store
    rng = random.Random(3)
    words = "postgres redis port host timeout retries region bucket branch node python cache queue".split()
    with open_store(store) as s:
        for i in range(facts):
            scope = "user" if i % 5 == 0 else f"project/{['api', 'web', 'infra'][i % 3]}"
            remember(s, f"{scope}/note{i}", f"{rng.choice(words)} {rng.choice(words)} is {rng.randrange(1, 9999)}")
    transcripts = sorted(corpus.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    mains = [p for p in transcripts if not p.name.startswith("agent-")]
    target = mains[-1]                                   # the longest session
    info = {"turns": _store_turns(store), "facts": facts, "transcript": str(target),
            "build_s": round(time.perf_counter() - t0, 1)}
    meta.write_text(json.dumps(info))
    return info


def _records(sid: str, cwd: str, n: int, prompt: str) -> bytes:
    ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    u = {"type": "user", "uuid": f"bench-u-{n}", "sessionId": sid, "cwd": cwd, "timestamp": ts,
         "message": {"role": "user", "content": prompt}}
    a = {"type": "assistant", "uuid": f"bench-a-{n}", "sessionId": sid, "cwd": cwd, "timestamp": ts,
         "message": {"id": f"msg_bench_{n}", "role": "assistant",
                     "content": [{"type": "text", "text": f"Here is what I found about step {n}."}]}}
    return (json.dumps(u) + "\n" + json.dumps(a) + "\n").encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("/tmp/mem-bench-hook"))
    ap.add_argument("--min-turns", type=int, default=100_000)
    ap.add_argument("--facts", type=int, default=300)
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--mem", help="the mem command (default: the mem script beside this Python)")
    args = ap.parse_args()
    mem = [args.mem] if args.mem else [str(Path(sys.executable).with_name("mem"))]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    # bytecode caching as in an installed package (pip compiles on install); kept out of the repo
    env.update(MEM_HOME=str(args.work / "store"), HOME=str(args.work / "home"),
               PYTHONPYCACHEPREFIX=str(args.work / "pycache"))
    (args.work / "home").mkdir(parents=True, exist_ok=True)
    info = build(args.work, args.min_turns, args.facts, mem, env)
    store = args.work / "store"
    t = Path(info["transcript"])
    first = json.loads(t.open("rb").readline())
    sid, cwd = first["sessionId"], first.get("cwd", "/")
    hook = [*mem, "hook", "claude-code"]

    def payload(ev: str, **kw) -> bytes:
        d = {"session_id": sid, "transcript_path": str(t), "cwd": cwd, "hook_event_name": ev}
        d.update(kw)
        return json.dumps(d).encode()

    _run(hook, env=env, stdin=payload("Stop"))           # the cursor: first sync of the transcript
    for _ in range(2):                                    # warm: bytecode caches written
        _run(hook, env=env, stdin=payload("UserPromptSubmit", prompt="warm up"))
        _run([*mem, "--version"], env=env)
    variants = {"hook": {}, "capture": {"MEM_NO_INJECT": "1"}, "inject": {"MEM_NO_CAPTURE": "1"}}
    rows: dict[str, list[tuple[float, float]]] = {k: [] for k in (*variants, "python", "version")}
    n = 0
    for i in range(args.samples):
        for name, extra in variants.items():
            prompt = f"{PROMPTS[n % len(PROMPTS)]} (#{n})"
            n += 1
            wall, cpu, rc = _run(hook, env={**env, **extra}, stdin=payload("UserPromptSubmit", prompt=prompt))
            assert rc == 0, rc
            rows[name].append((wall, cpu))
            with open(t, "ab") as f:                      # the agent answers; Stop syncs it
                f.write(_records(sid, cwd, n, prompt))
            _run(hook, env=env, stdin=payload("Stop"))
        rows["python"].append(_run([sys.executable, "-c", "pass"], env=env)[:2])
        rows["version"].append(_run([*mem, "--version"], env=env)[:2])
    log = store / "logs" / "hooks.log"
    errors = log.read_text().count("\n") if log.exists() else 0

    def ms(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return round(1000 * xs[min(len(xs) - 1, int(q * len(xs)))], 1)

    res = {"store_turns": info["turns"], "facts": info["facts"], "samples": args.samples,
           "hook_log_lines": errors, "load_avg": os.getloadavg()}
    print(f"store: {info['turns']} turns, {info['facts']} facts; {args.samples} samples; "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| process | wall p50 | wall p90 | wall max | CPU p50 |")
    print("|---|---|---|---|---|")
    for name, label in (("hook", "`mem hook claude-code` UserPromptSubmit (capture + injection)"),
                        ("capture", "the same, capture only (`MEM_NO_INJECT=1`)"),
                        ("inject", "the same, injection only (`MEM_NO_CAPTURE=1`)"),
                        ("python", "`python -c pass`"), ("version", "`mem --version`")):
        w = [x[0] for x in rows[name]]
        c = [x[1] for x in rows[name]]
        res[name] = {"p50_ms": ms(w, .5), "p90_ms": ms(w, .9), "max_ms": ms(w, 1.0),
                     "cpu_p50_ms": round(1000 * statistics.median(c), 1)}
        r = res[name]
        print(f"| {label} | {r['p50_ms']} ms | {r['p90_ms']} ms | {r['max_ms']} ms | {r['cpu_p50_ms']} ms |")
    (args.work / "hook-results.json").write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
