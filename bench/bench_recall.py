#!/usr/bin/env python3
"""Latency of ``mem recall`` and of the prompt-injection path as new processes.

Builds (once, cached under ``--work``) a store from the benchmark corpus
(``/tmp/bench-corpus``; generated with ``bench/gen_corpus.py`` when missing)
with ``mem import claude-code``, plus ``--facts`` facts (a third of them
superseded once) written through the library.  Then, interleaved so that load
from other processes falls on every command alike, it times as new processes:

* ``mem recall QUERY --all-projects --json`` with the corpus's needle queries
  (each answer is checked: the needle's session must be the top turn);
* ``mem context --prompt PROMPT`` (the cue-triggered injection of the
  UserPromptSubmit hook, without the hook's capture step);
* ``python -c pass``, for reference;
* with memware 0.11 in ``--peer-venv`` (default ``/tmp/bench-venv``; skipped
  when absent, never installed into the project's environment): ``memware
  recall -k 10 QUERY`` on a database backfilled from the same corpus, and
  ``memware context --from-hook`` with the same prompts.

Each figure is the median of ``--runs`` samples (default 15) after one
warm-up.  Python writes bytecode caches to ``WORK/pycache``
(``PYTHONPYCACHEPREFIX``) as an installed package would have them;
``PYTHONDONTWRITEBYTECODE`` is cleared for the child processes.

    python bench/bench_recall.py
    python bench/bench_recall.py --runs 21 --work /tmp/mem-bench-recall --no-peer

Prints a Markdown table and writes ``WORK/recall-results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROMPTS = [
    "which port does the api use in staging?",
    "why does the login test fail on CI but not locally?",
    "add retries to the upload client, 3 attempts with backoff",
    "deploy the fix to production",
    "the database migration fails with a lock timeout",
]


def run(argv, env, stdin=None, check=True):
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if check and p.returncode != 0:
        raise SystemExit(f"bench: exit {p.returncode}: {' '.join(argv)}\n{p.stderr[-2000:]}")
    return wall, p


def mem_argv() -> list[str]:
    exe = Path(sys.executable).with_name("mem")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cmds"]


def build_store(work: Path, corpus: Path, facts: int, env: dict) -> Path:
    store = work / "mem-store"
    marker = store / ".bench-built"
    if marker.exists():
        return store
    shutil.rmtree(store, ignore_errors=True)
    t, p = run(mem_argv() + ["import", "claude-code", str(corpus), "--json"], {**env, "MEM_HOME": str(store)})
    print(f"bench: imported the corpus in {t:.1f} s", file=sys.stderr)
    sys.path.insert(0, str(REPO))
    from objstore.memory.opening import open_store
    with open_store(store) as st:
        write_bench_facts(st, facts)
    marker.write_text("built\n")
    return store


def write_bench_facts(st, facts: int) -> None:
    """The benchmark's ``facts`` facts, spread over the store's projects (a
    quarter user facts), a third of them superseded once."""
    from objstore.memory.facts import remember
    from objstore.memory.sessions import list_sessions
    projects = sorted({s.project for s in list_sessions(st) if s.project}) or ["app"]
    for i in range(facts):
        proj = projects[i % len(projects)]
        key = f"project/{proj}/setting-{i}" if i % 4 else f"user/pref-{i}"
        remember(st, key, f"setting {i} of {proj}: port {8000 + i}, owner team-{i % 7}")
        if i % 3 == 0:
            remember(st, key, f"setting {i} of {proj}: port {9000 + i}, owner team-{i % 5}")


def build_memware(work: Path, corpus: Path, exe: Path, env: dict) -> list[str]:
    home = work / "memware-home"
    db = ["--db", str(home / "memware.db")]
    if not (home / ".bench-built").exists():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        run([str(exe)] + db + ["--json", "backfill", str(corpus)], {**env, "MEMWARE_HOME": str(home)})
        (home / ".bench-built").write_text("built\n")
    return [str(exe)] + db


def median_ms(xs: list[float]) -> float:
    return round(statistics.median(xs) * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/bench-corpus"))
    ap.add_argument("--work", type=Path, default=Path("/tmp/mem-bench-recall"))
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--facts", type=int, default=300)
    ap.add_argument("--peer-venv", type=Path, default=Path("/tmp/bench-venv"))
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args(argv)
    if args.runs < 10:
        ap.error("--runs must be at least 10")
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEM_", "MEMWARE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(HOME=str(work / "home"), PYTHONPYCACHEPREFIX=str(work / "pycache"))
    (work / "home").mkdir(exist_ok=True)
    if not (args.corpus / "needles.json").exists():
        print(f"bench: generating the corpus in {args.corpus}", file=sys.stderr)
        run([sys.executable, str(REPO / "bench" / "gen_corpus.py"), str(args.corpus)], env)
    needles = json.loads((args.corpus / "needles.json").read_text())
    store = build_store(work, args.corpus, args.facts, env)
    menv = {**env, "MEM_HOME": str(store)}
    mem = mem_argv()
    peer = None
    exe = args.peer_venv / "bin" / "memware"
    if not args.no_peer and exe.exists():
        peer = build_memware(work, args.corpus, exe, env)
    penv = {**env, "MEMWARE_HOME": str(work / "memware-home")}

    specs = {
        "python -c pass": lambda i: ([sys.executable, "-c", "pass"], env, None),
        "mem recall": lambda i: (mem + ["recall", needles[i % len(needles)]["query"], "--all-projects", "--json"],
                                 menv, None),
        "mem context --prompt": lambda i: (mem + ["context", "--prompt", PROMPTS[i % len(PROMPTS)]], menv, None),
    }
    if peer:
        specs["memware recall"] = lambda i: (peer + ["--json", "recall", "--no-touch", "-k", "10",
                                                     needles[i % len(needles)]["query"]], penv, None)
        specs["memware context --from-hook"] = lambda i: (
            peer + ["context", "--from-hook"], penv,
            json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "bench", "cwd": str(work),
                        "prompt": PROMPTS[i % len(PROMPTS)]}))
    times: dict[str, list[float]] = {k: [] for k in specs}
    correct = 0
    for name, spec in specs.items():  # warm-up (bytecode caches, page cache)
        a, e, s = spec(0)
        run(a, e, s, check=False)
    for i in range(args.runs):
        for name, spec in specs.items():
            a, e, s = spec(i)
            t, p = run(a, e, s, check=not name.startswith("memware"))
            times[name].append(t)
            if name == "mem recall":
                hits = [h for h in json.loads(p.stdout)["hits"] if h["kind"] == "turn"]
                want = needles[i % len(needles)]["session"]
                correct += bool(hits) and (hits[0]["session"] == want or hits[0]["session"].startswith(want + "."))
    res = {k: {"median_ms": median_ms(v), "min_ms": round(min(v) * 1000, 1), "runs": len(v)}
           for k, v in times.items()}
    res["mem recall"]["needle_top1"] = f"{correct}/{args.runs}"
    out = {"corpus": str(args.corpus), "store": str(store), "runs": args.runs, "results": res,
           "machine": {"cpus": os.cpu_count(), "load": os.getloadavg()}}
    (work / "recall-results.json").write_text(json.dumps(out, indent=2))
    print("| command (new process) | median | min | vs memware |")
    print("|---|---|---|---|")
    pairs = {"mem recall": "memware recall", "mem context --prompt": "memware context --from-hook"}
    for k, v in res.items():
        ratio = ""
        if k in pairs and pairs[k] in res and res[pairs[k]]["median_ms"]:
            ratio = f"{v['median_ms'] / res[pairs[k]]['median_ms']:.2f}×"
        print(f"| `{k}` | {v['median_ms']} ms | {v['min_ms']} ms | {ratio} |")
    print(f"\nmem recall: needle session first in {res['mem recall']['needle_top1']} runs; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
