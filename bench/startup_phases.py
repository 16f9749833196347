#!/usr/bin/env python3
"""Where a new ``mem`` process's CPU goes after its imports: the named
functions of one command, each wrapped with a CPU clock, in new processes
(issue 12, "Start-up"; docs/benchmarks.md, "Session 18 (branch `lat18`)").

Each sample runs ``python startup_phases.py --child ...`` in a new process
with ``PYTHONPATH`` = the tree: it imports ``cmds.entry``, replaces each
named function (``module:qualname``, looked up where the callers look it
up) by a wrapper that adds up its calls and ``time.process_time``, and
runs ``cmds.entry.entry()`` on the command line; it prints, from
``cmds.entry``'s last exit step, the CPU of the wrapped modules' imports
(``imports``: the modules holding the named functions, with their own
imports, which the command would have loaded at some point too), of the
command after that (``run``) and of each function (nested calls count in
each).  The parent prints the medians over the samples.  A profiler's
per-call cost is not paid: only the named functions are timed.

Usage::

    python bench/startup_phases.py --store STORE --tree . --runs 9 --phase objstore.core.store:Store.get \\
        --phase objstore.index.generations:SubIndex._open_gen recall --all-projects --json -n 10 "api port"
    python bench/startup_phases.py --store STORE --hook "what port does the api listen on now?" --cwd DIR \\
        --phase objstore.retrieval.inject:_gate

``--hook PROMPT`` runs ``mem hook claude-code`` with a UserPromptSubmit
event of a new session each sample (capture off: ``MEM_NO_CAPTURE=1``, so
the samples leave the store as it was; ``--capture``: on, as
``bench/run.py``'s hook row runs it, the prompt stored by the forked child,
whose CPU is not counted).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def child(phases: list[str], argv: list[str]) -> None:
    """In the sample's process: wrap ``phases``, run ``mem argv``, print the figures on stderr."""
    t0 = time.process_time()
    import cmds.entry as entry
    acc: dict[str, list] = {}

    def wrap(spec: str) -> None:
        mod, qual = spec.split(":")
        obj = importlib.import_module(mod)
        *owners, name = qual.split(".")
        for o in owners:
            obj = getattr(obj, o)
        fn = getattr(obj, name)

        def timed(*a, **kw):
            t = time.process_time()
            try:
                return fn(*a, **kw)
            finally:
                n = acc.setdefault(qual, [0, 0.0])
                n[0] += 1
                n[1] += time.process_time() - t
        setattr(obj, name, timed)

    t1 = time.process_time()
    for spec in phases:
        wrap(spec)
    t2 = time.process_time()
    leave = entry._skip_teardown

    def report() -> None:
        t3 = time.process_time()
        out = {"entry": (t1 - t0) * 1000, "imports": (t2 - t1) * 1000, "run": (t3 - t2) * 1000,
               "modules": len(sys.modules), **{f"{q} x{n}": s * 1000 for q, (n, s) in acc.items()}}
        sys.stderr.write("PHASES " + json.dumps(out) + "\n")
        leave()
    entry._skip_teardown = report
    sys.argv = ["mem", *argv]
    entry.entry()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, help="the store (MEM_HOME)")
    ap.add_argument("--tree", default=str(REPO), help="the source tree (default: this one)")
    ap.add_argument("--runs", type=int, default=9, help="new processes (default 9)")
    ap.add_argument("--phase", action="append", default=[], metavar="MODULE:QUALNAME")
    ap.add_argument("--hook", metavar="PROMPT", help="run the prompt hook with this prompt instead of a command")
    ap.add_argument("--cwd", default=os.getcwd(), help="the hook event's cwd (its project)")
    ap.add_argument("--capture", action="store_true",
                    help="with --hook: capture on, as bench/run.py's hook row runs it (each prompt is stored: "
                         "use a copy of the store)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the mem command line")
    args = ap.parse_args(argv)
    if args.child:
        child(args.phase, args.command)
        return 0
    env = {**os.environ, "PYTHONPATH": str(Path(args.tree).resolve()), "MEM_HOME": str(args.store)}
    cmd = ["hook", "claude-code"] if args.hook else args.command
    if args.hook and not args.capture:
        env["MEM_NO_CAPTURE"] = "1"
    figures: dict[str, list[float]] = collections.defaultdict(list)
    for _ in range(args.runs):
        stdin = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": f"phases-{uuid.uuid4().hex}",
                            "cwd": args.cwd, "prompt": args.hook}).encode() if args.hook else None
        p = subprocess.run([sys.executable, __file__, "--child", *sum((["--phase", s] for s in args.phase), []),
                            *cmd], env=env, input=stdin, capture_output=True, cwd=args.cwd)
        got = [ln for ln in p.stderr.decode(errors="replace").splitlines() if ln.startswith("PHASES ")]
        if not got:
            print(p.stderr.decode(errors="replace"), file=sys.stderr)
            return 1
        for k, v in json.loads(got[-1][len("PHASES "):]).items():
            figures[k].append(v)
    print(f"{args.runs} new processes, load average {os.getloadavg()[0]:.1f}; CPU medians, ms")
    for k, v in figures.items():
        print(f"  {k:60s} {statistics.median(v):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
