#!/usr/bin/env python3
"""Instructions a new ``mem`` process executes (valgrind's callgrind, its
``I refs`` total), per source tree, rounds interleaved: an A/B figure that
the machine's load does not move (docs/benchmarks.md, "Session 31 (branch
`lat31`)"), where CPU medians of two cores shared with a dozen processes
differ by more than the change measured.

Each tree's ``bin``, ``cmds``, ``objstore`` and ``hooks`` are copied under
``--work`` with the prompt hook's budget raised to 900 s
(``cmds/_hookclock.py``'s ``BUDGET_S`` and ``DEFAULT_BUDGET_S``): under
valgrind a process runs ~50 times slower, and a hook that reaches its
budget fails open and does less.  A first run of each command (not counted)
writes the copy's bytecode and kept patterns, as after an install's first
use.  Then each round runs, per tree in turn, ``mem recall --all-projects
--json -n 10 QUERY`` for each ``--query``, ``mem get KEY`` for each
``--get``, ``mem context --project PROJECT`` (the session-start block) for
each ``--context``, ``mem remember KEY VALUE`` for each ``--remember`` (a new
value each time), the UserPromptSubmit hook for each ``--hook`` prompt (capture
off, a new session id each time, the ``--cwd`` folder), for ``--stop`` a
Stop hook of the transcript's session (``--capture``: the hook checks and
syncs that transcript, whose cursor is at its end after the warm-up) and
``python -c pass``, each under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``,
with ``PYTHONPATH`` = the copy and ``MEM_HOME`` = ``--store`` (the hook
writes its session state there: give it a copy).  Counted: every thread of the process (tantivy's too);
not counted: the kernel's work (system calls, page faults), so a change of
I/O shows in CPU time only.  Prints the median per command and tree, and
each tree's difference from the first.  Needs ``valgrind`` on PATH.

``--capture``: the prompt hooks run with capture on, as in a session: the
hook fixes its prompt's key from a transcript that holds one earlier
prompt (``WORK/transcript.jsonl``) and forks its capture child; only the
hook's own process is counted (valgrind's log of its pid), and the next
process starts after the child's end (at most 300 s).  The store grows by
one turn per hook: give it a copy.

Usage::

    python bench/instr_count.py --store STORE --tree base=/tmp/base --tree branch=. --runs 3 \\
        --query "fiduvik tedugix" --hook "how do we run the migrations again"
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

PARTS = ("bin", "cmds", "objstore", "hooks")
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def copy_tree(src: Path, dst: Path) -> Path:
    """``src``'s packages and ``bin/mem`` under ``dst``, the hook budget raised."""
    if dst.exists():
        shutil.rmtree(dst)
    for part in PARTS:
        if (src / part).exists():
            shutil.copytree(src / part, dst / part, ignore=shutil.ignore_patterns("__pycache__"))
    clock = dst / "cmds" / "_hookclock.py"
    text = clock.read_text()
    raised = text.replace('"UserPromptSubmit": 2.0', '"UserPromptSubmit": 900.0').replace(
        "DEFAULT_BUDGET_S = 3.0", "DEFAULT_BUDGET_S = 900.0")
    if raised == text:
        sys.exit(f"{clock}: the hook budget's line was not found")
    clock.write_text(raised)
    return dst


def run(argv: list[str], env: dict, cwd: Path, stdin: bytes | None, valgrind: bool) -> int | None:
    """The ``I refs`` of one process, not of the children it forks (None
    without valgrind or when it printed none).  Returns after every forked
    child counted by valgrind ended, or after 300 s."""
    with tempfile.TemporaryDirectory(prefix="instr-") as logs:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={logs}/vg.%p",
               *argv] if valgrind else argv
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        p.communicate(stdin, timeout=600)
        if not valgrind:
            return None
        end = time.monotonic() + 300
        while time.monotonic() < end:   # a forked child (the hook's capture) logs its total as it ends
            done = [f for f in Path(logs).iterdir() if _REFS.search(f.read_text(errors="replace"))]
            if len(done) == len(list(Path(logs).iterdir())):
                break
            time.sleep(0.2)
        own = Path(logs) / f"vg.{p.pid}"
        m = _REFS.search(own.read_text(errors="replace")) if own.exists() else None
    return int(m.group(1).replace(",", "")) if m else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="MEM_HOME (the hook writes its session state)")
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("--query", action="append", default=[], help="a recall query (repeatable)")
    ap.add_argument("--hook", action="append", default=[], metavar="PROMPT", help="a prompt hook (repeatable)")
    ap.add_argument("--get", action="append", default=[], metavar="KEY", help="a mem get of KEY (repeatable)")
    ap.add_argument("--remember", action="append", default=[], metavar="KEY",
                    help="a mem remember of KEY, a new value each time (repeatable; the store grows)")
    ap.add_argument("--context", action="append", default=[], metavar="PROJECT",
                    help="a mem context --project PROJECT, the session-start block (repeatable)")
    ap.add_argument("--cwd", type=Path, help="the hook's and the commands' folder (default: WORK/home)")
    ap.add_argument("--stop", action="store_true",
                    help="a Stop hook of the transcript's session (with --capture: it syncs WORK/transcript.jsonl)")
    ap.add_argument("--capture", action="store_true",
                    help="prompt hooks with capture on and a transcript (module doc); else MEM_NO_CAPTURE=1")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mem-instr"))
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter (default: this one; bench/startup.py's venv has no editable finder)")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("instr_count: valgrind is not on PATH", file=sys.stderr)
        return 2
    trees = dict(t.split("=", 1) for t in args.tree)
    copies = {n: copy_tree(Path(p).resolve(), args.work / f"tree-{n}") for n, p in trees.items()}
    cwd = args.cwd or args.work / "home"
    cwd.mkdir(parents=True, exist_ok=True)
    transcript = cwd / "none.jsonl"
    if args.capture:
        transcript = args.work / "transcript.jsonl"
        transcript.write_text(json.dumps({"type": "user", "uuid": "u-instr-1", "sessionId": "instr",
                                          "message": {"role": "user", "content": "an earlier prompt"}}) + "\n")
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    commands: dict[str, tuple] = {f"recall {q!r}": (["recall", "--all-projects", "--json", "-n", "10", q], None)
                                  for q in args.query}
    commands.update({f"get {k!r}": (["get", k], None) for k in args.get})
    commands.update({f"context {p!r}": (["context", "--project", p], None) for p in args.context})
    for prompt in args.hook:
        commands[f"hook {prompt!r}"] = (["hook", "claude-code"], prompt)
    if args.stop:
        commands["hook Stop"] = (["hook", "claude-code"], None)
    commands.update({f"remember {k!r}": (["remember", k], None) for k in args.remember})
    got: dict[tuple[str, str], list[int]] = {}

    def sample(name: str, tree: str, valgrind: bool) -> None:
        copy = copies[tree]
        env = {**base_env, "PYTHONPATH": str(copy), "MEM_HOME": str(args.store), "PYTHONHASHSEED": "0",
               "MEM_NO_HELPER": "1", **({} if args.capture else {"MEM_NO_CAPTURE": "1"})}
        if name == "python -c pass":
            argv, stdin = [args.python, "-c", "pass"], None
        else:
            rest, prompt = commands[name]
            argv = [args.python, str(copy / "bin" / "mem"), *rest]
            if rest[0] == "remember":   # a new value each time: a repeated one writes nothing
                argv.append(f"api listens on {uuid.uuid4().hex[:8]}")
            stdin = None if prompt is None else json.dumps(
                {"hook_event_name": "UserPromptSubmit", "session_id": f"instr-{uuid.uuid4().hex[:12]}",
                 "cwd": str(cwd), "transcript_path": str(transcript), "prompt": prompt}).encode()
            if name == "hook Stop":   # the transcript's own session: after the warm-up its cursor is at the end
                stdin = json.dumps({"hook_event_name": "Stop", "session_id": "instr", "cwd": str(cwd),
                                    "transcript_path": str(transcript), "stop_hook_active": False}).encode()
        n = run(argv, env, cwd, stdin, valgrind)
        if valgrind and n is not None:
            got.setdefault((name, tree), []).append(n)

    names = [*commands, "python -c pass"]
    for tree in copies:   # the warm-up: bytecode and kept patterns written
        for name in names:
            sample(name, tree, valgrind=False)
    for i in range(args.runs):
        for tree in (list(copies) if i % 2 == 0 else list(copies)[::-1]):
            for name in names:
                sample(name, tree, valgrind=True)
    first = next(iter(copies))
    print(f"{args.runs} rounds, load average {os.getloadavg()[0]:.1f}, capture {'on' if args.capture else 'off'}; "
          "median instructions (I refs)")
    for name in names:
        ref = statistics.median(got.get((name, first), [0]) or [0])
        for tree in copies:
            vals = got.get((name, tree), [])
            if not vals:
                print(f"  {name:50s} {tree:10s} (no count)")
                continue
            med = statistics.median(vals)
            diff = "" if tree == first or not ref else f"  {med - ref:+,.0f} ({(med - ref) / ref:+.2%})"
            print(f"  {name:50s} {tree:10s} {med:14,.0f}  [{min(vals):,}-{max(vals):,}]{diff}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
