#!/usr/bin/env python3
"""New-process latency with the resident helper, two (or more) installs side
by side (issue 12, "Start-up"; docs/benchmarks.md, "Session 12 (branch
`start12`)").

Each ``--tree NAME=MEM:STORE`` is a ``mem`` command (an install laid out as
pip would, ``bench/run.py``'s ``install_snapshot``) and a store of its own
whose helper runs (a helper serves one code version: two trees cannot share
one).  ``get``, ``recall``, the UserPromptSubmit hook and ``remember`` run as
new processes, trees and commands taken in turn so that load falls on all
alike; after each sample the helper is waited for until it greets again (the
work it does after an answer, the hook's capture and remember's index
commit, is over and counted with its request).  ``--before helper`` (or
``plain``) runs one more ``remember`` right before each sample, through the
helper (or as a new process without it, ``MEM_NO_HELPER=1``), and does not
wait: the sample then starts while that write's index commit holds the
store lock, as in ``bench/run.py --helper``'s interleaving (docs/benchmarks.md,
"Session 16 (branch `lat16`)").  Per row: wall and client
CPU (user + sys, ``os.wait4``) medians, and the helper's CPU per request
(``/proc/PID/stat``, 10 ms ticks: a mean over the runs).

Usage::

    python bench/helper_ab.py --tree batch=/tmp/a/venv/bin/mem:/tmp/a/store \\
        --tree branch=/tmp/b/venv/bin/mem:/tmp/b/store --runs 11
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cmds._helperclient import connect  # noqa: E402
from run import _proc_cpu_ms as cpu_of  # noqa: E402  (bench/run.py)
from startup import run  # noqa: E402  (bench/startup.py: one new process, wall and CPU)

CASES = {
    "get": (["get", "project/bench/one"], False),
    "recall": (["recall", "--all-projects", "--json", "-n", "10", "database migration failed"], False),
    "hook": (["hook", "claude-code"], True),
    "remember": (["remember", "project/bench/api-port", "api listens on {i}"], False),
}


def helper_pids(trees: list[tuple[str, str, str]], who: str) -> dict[str, int]:
    """``{tree name: pid of its store's running helper}`` for ``(name, mem,
    store)`` trees; exits naming the first store whose helper is not running."""
    pids = {}
    for name, _mem, store in trees:
        got = connect(store, 5.0)
        if got is None:
            raise SystemExit(f"{who}: no helper runs for {name} ({store}): mem --home {store} helper start")
        got[0].sock.close()
        pids[name] = got[1]
    return pids


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=MEM:STORE")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--only", default=",".join(CASES), help="comma-separated: get,recall,hook,remember")
    ap.add_argument("--home", type=Path, default=Path("/tmp/mem-helper-ab-home"))
    ap.add_argument("--before", choices=("idle", "helper", "plain"), default="idle",
                    help="right before each sample: nothing (the helper idle), or a remember through the "
                         "helper, or one without it")
    args = ap.parse_args(argv)
    trees = [(t.split("=", 1)[0], *t.split("=", 1)[1].split(":", 1)) for t in args.tree]
    args.home.mkdir(parents=True, exist_ok=True)
    home = str(args.home)

    def env_of(store: str) -> dict:
        e = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("MEM_")}
        return {**e, "MEM_HOME": store, "HOME": home}

    def event(i: int) -> bytes:
        return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": f"bench-ab-{i}", "cwd": home,
                           "transcript_path": home + "/none.jsonl",
                           "prompt": "why did the database migration fail on the deploy branch"}).encode()
    pids = helper_pids(trees, "helper_ab")
    res: dict = {}
    for i in range(args.runs + 1):   # round 0 warms up
        for k in args.only.split(","):
            cmd, hook = CASES[k]
            for name, mem, store in trees:
                if args.before != "idle":
                    pre = env_of(store) if args.before == "helper" else {**env_of(store), "MEM_NO_HELPER": "1"}
                    run([mem, "remember", "project/bench/api-port", f"before {i} {k} {name}"], pre, args.home, None)
                c0 = cpu_of(pids[name])
                r = run([mem] + [a.replace("{i}", f"{9000 + i} {name}") for a in cmd], env_of(store), args.home,
                        event(i) if hook else None)
                got = connect(store, 10.0)   # greets once the work after the answer is done
                if got is not None:
                    got[0].sock.close()
                if i:
                    res.setdefault((k, name), []).append((*r, cpu_of(pids[name]) - c0))
    print(f"runs {args.runs}, before each sample: {args.before}, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| command | tree | wall median (min) | client CPU median | helper CPU per request |")
    print("|---|---|---|---|---|")
    for (k, name), rows in res.items():
        codes = sorted({r[2] for r in rows})
        print(f"| {k} | {name} | {statistics.median(r[0] for r in rows):.1f} ({min(r[0] for r in rows):.1f}) ms "
              f"| {statistics.median(r[1] for r in rows):.1f} ms | {statistics.mean(r[3] for r in rows):.1f} ms |"
              + ("" if codes == [0] else f" exit {codes}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
