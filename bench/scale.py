#!/usr/bin/env python3
"""Scale check (issue 12, item 5): a store of ``--turns`` corpus turns.

Builds the corpus with ``bench/gen_corpus.py`` (16 sessions per 1,000
turns), imports it with ``mem import claude-code`` into a new store and
reports:

* the import: wall, CPU and peak RSS (``wait4``), turns stored;
* the store on disk (``du``) and bytes per stored turn, objects and index apart;
* ``recall``, ``get`` and the UserPromptSubmit hook as new processes
  (medians of ``--runs``), on this store and on a store of the 18,099-turn
  default corpus, taken in turn, and their ratio (target: within 1.5×);
* ``mem gc`` and a ``mem forget --match`` of one turn (a planted needle),
  wall time (target: forget ≤ 3 s).

Usage::

    python bench/scale.py --turns 1000000            # the issue's check (~8 GB of corpus)
    python bench/scale.py --turns 100000 --runs 9    # what fits in a few minutes
    python bench/scale.py --turns 2000 --runs 2 --base-turns 600   # a smoke run
    python bench/scale.py --work NEW --latency-only BASE BIG --corpora W   # latencies only, on copies
    python bench/scale.py --work NEW --latency-only BASE BIG --corpora W --mem A --vs B --cold-counts

Stores and corpora stay in ``--work`` (default ``/tmp/mem-scale``) and are
reused by a later run of the same sources and size. Results: ``WORK/scale.json``
and a Markdown table on stdout. Helpers are shared with ``bench/run.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402  (bench/run.py: runner, stores, corpora, summaries)

FORGET_TARGET_S = 3.0
LATENCY_RATIO_TARGET = 1.5


def hook_event(work: Path):
    def ev(i: int) -> bytes:
        return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": f"scale-hook-{i + 2}",
                           "cwd": str(work / "home"), "transcript_path": str(work / "home" / "none.jsonl"),
                           "prompt": bench.HOOK_PROMPTS[i % len(bench.HOOK_PROMPTS)]}).encode()
    return ev


def drop_counts(home: Path) -> None:
    """Remove the scoped counts recalls keep per index generation
    (``index/*/gen-*/.counts``): the next recall counts as the first one
    in that state of the index does."""
    for f in home.glob("index/*/gen-*/.counts"):
        f.unlink(missing_ok=True)


def latencies(runner, mem, points: dict, runs: int, work: Path, *, mems: dict | None = None,
              cold: bool = False) -> dict:
    """recall / get / hook as new processes on every point's store, interleaved.
    ``mems``: {label: command} measured in turn with each other (keys of the
    result ``<tag>`` become ``<tag>@<label>``); ``cold``: the kept counts
    are removed before every recall and hook run."""
    specs = {}
    for label, m in (mems or {"": mem}).items():
        for tag, p in points.items():
            env = {"MEM_HOME": str(p["_home"])}
            key = f"{tag}@{label}" if label else tag
            qs = [n["query"] for n in bench.load_needles(p["_corpus"])] or ["error"]

            def first(argv_for, home=p["_home"]):
                """``argv_for``, after the kept counts went (with ``cold``)."""
                def argv(i: int) -> list[str]:
                    if cold:
                        drop_counts(home)
                    return argv_for(i)
                return argv
            specs[f"recall:{key}"] = (first((lambda qs, m: lambda i: m + ["recall", "--all-projects", "--json", "-n",
                                                                           "10", qs[i % len(qs)]])(qs, m)), env)
            specs[f"get:{key}"] = ((lambda m: lambda i: m + ["get", "project/scale/api-port"])(m), env)
            specs[f"hook:{key}"] = (first((lambda m: lambda i: m + ["hook", "claude-code"])(m)), env, hook_event(work))
    rows = bench.interleaved(runner, specs, runs)
    out: dict = {}
    for name, rs in rows.items():
        what, tag = name.split(":")
        out.setdefault(what, {})[tag] = bench.summary(rs)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=1_000_000, help="corpus turns of the big store (default 1M)")
    ap.add_argument("--base-turns", type=int, default=18_099, help="corpus turns of the reference store")
    ap.add_argument("--runs", type=int, default=9, help="new processes per latency figure (default 9)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", type=Path, default=Path("/tmp/mem-scale"))
    ap.add_argument("--mem", help="how to run mem (default: the mem script beside this Python)")
    ap.add_argument("--mem-rev", metavar="REV", help="measure commit REV (or 'worktree'), installed as pip would")
    ap.add_argument("--snapshot", type=Path, metavar="DIR",
                    help="copy the big store to DIR (replaced) after the latencies, before gc: to profile "
                         "gc and forget again on copies without importing again")
    ap.add_argument("--latency-only", nargs=2, type=Path, metavar=("BASE_HOME", "BIG_HOME"),
                    help="only the latencies, on these two existing stores (e.g. copies of the stores a full "
                         "run left in --work: neither is imported, gc'd nor changed by a forget); their "
                         "corpora's needles are read from --corpora")
    ap.add_argument("--vs", metavar="MEM", help="with --latency-only: also measure this mem command (e.g. another "
                                                "revision's), in turn with --mem, the ratio of each apart")
    ap.add_argument("--cold-counts", action="store_true",
                    help="with --latency-only: remove the stores' kept scoped counts (index/*/gen-*/.counts) "
                         "before every recall and hook run")
    ap.add_argument("--also", nargs=2, type=Path, metavar=("BASE_HOME", "BIG_HOME"),
                    help="with --latency-only: a second pair of stores of the same corpora, measured in turn "
                         "with the first (e.g. copies after 'mem gc' merged their small segments); its "
                         "figures are tagged base2 / big2")
    ap.add_argument("--corpora", type=Path, metavar="DIR",
                    help="with --latency-only: the directory holding scale-corpus-base and "
                         "scale-corpus-t<turns> (default: --work)")
    args = ap.parse_args(argv)
    work = args.work.resolve()
    bench.prepare_work(work)
    base_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("MEM_", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"))}
    (work / "home").mkdir(exist_ok=True)
    base_env.update({"HOME": str(work / "home"), "NO_COLOR": "1", "MEM_LOCK_TIMEOUT": "60",
                     "PYTHONPYCACHEPREFIX": str(work / "pycache")})
    runner = bench.Runner(work / "scratch", base_env)
    if args.mem_rev:
        mem = bench.install_snapshot(bench.export_rev(args.mem_rev, work / "mem-src"), work / "mem-venv")
    else:
        mem = bench.mem_command(args.mem)
    if args.latency_only:
        corpora = (args.corpora or work).resolve()
        points = {"base": {"_home": args.latency_only[0].resolve(), "_corpus": corpora / "scale-corpus-base"},
                  "big": {"_home": args.latency_only[1].resolve(), "_corpus": corpora / f"scale-corpus-t{args.turns}"}}
        pairs = [("base", "big")]
        if args.also:
            points["base2"] = {**points["base"], "_home": args.also[0].resolve()}
            points["big2"] = {**points["big"], "_home": args.also[1].resolve()}
            pairs.append(("base2", "big2"))
        load = os.getloadavg()
        mems = {"mem": mem, "vs": bench.mem_command(args.vs)} if args.vs else None
        lat = latencies(runner, mem, points, args.runs, work, mems=mems, cold=args.cold_counts)
        print(json.dumps({"argv": " ".join(map(shlex.quote, sys.argv)), "loadavg_start": load,
                          "loadavg_end": os.getloadavg(), "latency": lat}, indent=1))
        for what, d in lat.items():
            for label in (mems or {"": None}):
                for bt, gt in pairs:
                    at = f"@{label}" if label else ""
                    b, g = d[bt + at], d[gt + at]
                    print(f"{what}{at}: {bt} {b['median_ms']} ms (CPU {b['cpu_median_ms']}, of it system "
                          f"{b['sys_median_ms']}), {gt} {g['median_ms']} ms (CPU {g['cpu_median_ms']}, of it system "
                          f"{g['sys_median_ms']}): {g['median_ms'] / b['median_ms']:.2f}x "
                          f"(CPU {g['cpu_median_ms'] / b['cpu_median_ms']:.2f}x)", file=sys.stderr)
        return 0
    reuse = bench.tree_digest(bench.src_of(mem))
    points = {"base": bench.scale_point(runner, mem, work, args.base_turns, args.seed, "base", reuse),
              "big": bench.scale_point(runner, mem, work, args.turns, args.seed, f"t{args.turns}", reuse)}
    for p in points.values():
        home = p["_home"]
        parts = {d.name: bench.disk_usage(d)["bytes"] for d in sorted(home.iterdir()) if d.is_dir()}
        n = max(1, p["turns_indexed"])
        p["bytes_per_turn"] = {"objects": round(parts.get("objects", 0) / n, 1),
                               "index": round(parts.get("index", 0) / n, 1),
                               "store": round(bench.disk_usage(home)["bytes"] / n, 1)}
        runner.run(mem + ["remember", "project/scale/api-port", "the api listens on 8080"], {"MEM_HOME": str(home)})
    print("scale: latencies", file=sys.stderr, flush=True)
    lat = latencies(runner, mem, points, args.runs, work)
    big = points["big"]
    env = {"MEM_HOME": str(big["_home"])}
    if args.snapshot:
        print(f"scale: copying the store to {args.snapshot}", file=sys.stderr, flush=True)
        shutil.rmtree(args.snapshot, ignore_errors=True)
        subprocess.run(["cp", "-a", "--reflink=auto", str(big["_home"]), str(args.snapshot)], check=True)
    print("scale: gc", file=sys.stderr, flush=True)
    r = runner.run(mem + ["gc"], env, timeout=3 * 3600)
    gc = {"wall_s": round(r["wall_s"], 2), "cpu_s": round(r["cpu_s"], 2), "peak_rss_mb": round(r["rss_mb"], 1)}
    needles = bench.load_needles(big["_corpus"])
    word = needles[0]["query"].split()[0] if needles else "error"
    print(f"scale: forget --match {word}", file=sys.stderr, flush=True)
    r = runner.run(mem + ["forget", "--match", word, "--yes", "--json"], env, check=False, timeout=3600)
    forget = {"match": word, "rc": r["rc"], "wall_s": round(r["wall_s"], 2), "cpu_s": round(r["cpu_s"], 2),
              "peak_rss_mb": round(r["rss_mb"], 1)}
    for p in points.values():
        del p["_corpus"], p["_home"]
    ratios = {w: bench.ratio(lat[w]["big"]["median_ms"], lat[w]["base"]["median_ms"]) for w in lat}
    res = {"meta": {"argv": shlex.join(["python", "bench/scale.py", *(argv or sys.argv[1:])]),
                    "machine": bench.machine(), "mem": shlex.join(mem), "src_digest": reuse},
           "points": points, "latency": lat, "ratios": ratios, "gc": gc, "forget": forget,
           "targets": {"import_peak_rss_mb": bench._verdict(big["import_peak_rss_mb"], bench.TARGETS["scale_rss_mb"]),
                       **{f"{w}_ratio": bench._verdict(x, LATENCY_RATIO_TARGET) for w, x in ratios.items()},
                       "forget_s": bench._verdict(forget["wall_s"], FORGET_TARGET_S)}}
    res["meta"]["machine"]["loadavg_end"] = list(os.getloadavg())
    (work / "scale.json").write_text(json.dumps(res, indent=2) + "\n")
    print(markdown(res))
    return 0


def markdown(res: dict) -> str:
    b, s = res["points"]["base"], res["points"]["big"]
    t = res["targets"]
    mark = lambda k: "" if t[k]["met"] is None else (" ✓" if t[k]["met"] else " ✗")  # noqa: E731
    rows = [("| what | reference store | scale store | ratio | target |"), "|---|---|---|---|---|",
            f"| corpus turns | {b['turns']:,} | {s['turns']:,} | | |",
            f"| turns stored | {b['turns_indexed']:,} | {s['turns_indexed']:,} | | |",
            f"| import wall / CPU | {b['import_wall_s']:.1f} s / {b['import_cpu_s']:.1f} s | "
            f"{s['import_wall_s']:.1f} s / {s['import_cpu_s']:.1f} s | | |",
            f"| import peak RSS (`wait4`, kB = 1,024 B) | {b['import_peak_rss_mb'] * 1024:,.0f} kB | "
            f"{s['import_peak_rss_mb'] * 1024:,.0f} kB | | ≤ 300 MB = 292,969 kB{mark('import_peak_rss_mb')} |",
            f"| store on disk | {b['store_bytes'] / 1e6:.1f} MB | {s['store_bytes'] / 1e6:.1f} MB | | |",
            f"| bytes per stored turn: objects / index | {b['bytes_per_turn']['objects']:.0f} / "
            f"{b['bytes_per_turn']['index']:.0f} | {s['bytes_per_turn']['objects']:.0f} / "
            f"{s['bytes_per_turn']['index']:.0f} | | |"]
    for w in ("recall", "get", "hook"):
        lb, ls = res["latency"][w]["base"], res["latency"][w]["big"]
        rows.append(f"| `{w}`, new process (median; CPU) | {lb['median_ms']:.0f} ms; {lb['cpu_median_ms']:.0f} ms | "
                    f"{ls['median_ms']:.0f} ms; {ls['cpu_median_ms']:.0f} ms | {res['ratios'][w]:.2f}× | "
                    f"≤ 1.5×{mark(w + '_ratio')} |")
    rows.append(f"| `mem gc` | | {res['gc']['wall_s']:.1f} s | | |")
    rows.append(f"| `mem forget --match {res['forget']['match']}` (one turn) | | {res['forget']['wall_s']:.2f} s | | "
                f"≤ 3 s{mark('forget_s')} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.exit(main())
