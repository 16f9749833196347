"""CPU per ``inject_for_prompt`` in process, for each source tree given, on
two stores this script builds (docs/benchmarks.md, "Session 35 (branch
`late35`)"): ``noted``, a key of 11 versions whose older value the
session's start block showed (the prompt's line gets the shownbefore note),
and ``unshown``, a key of 40 versions the session was never shown, beside
one it was (nothing to note: the worst case of a chain walk).  The session
state is put back after each call, so every call serves the fact.

    python bench/shown_note_ab.py TREE [TREE …] [--n 300] [--rounds 3]

Trees are run interleaved, each call a new process per (round, tree, store).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SID = "15151515-0000-0000-0000-0000000000aa"
CWD = "/tmp/shown-note-bench/acme"
CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from objstore.memory.opening import open_store
from objstore.retrieval.inject import inject_for_prompt
from objstore.retrieval.context import load_state, save_state
sid, cwd, n = sys.argv[3], sys.argv[4], int(sys.argv[5])
with open_store(sys.argv[2]) as s:
    st0 = load_state(s, sid)
    inject_for_prompt(s, sid, "which port does the db use?", cwd=cwd)
    save_state(s, sid, st0)
    t = time.process_time()
    for _ in range(n):
        inj = inject_for_prompt(s, sid, "which port does the db use?", cwd=cwd)
        save_state(s, sid, st0)
    print((time.process_time() - t) / n * 1000, "changed since" in inj.text)
"""


def _mem(tree: str, home: Path, *args: str, stdin: str | None = None) -> None:
    env = {**os.environ, "PYTHONPATH": tree, "MEM_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "cmds", *args], env=env, input=stdin, text=True, check=True,
                   capture_output=True, cwd=tree)


def _start(tree: str, home: Path) -> None:
    _mem(tree, home, "hook", "claude-code", stdin=json.dumps(
        {"session_id": SID, "hook_event_name": "SessionStart", "source": "startup", "cwd": CWD}))


def build(tree: str, root: Path) -> dict[str, Path]:
    """The two stores (written by ``tree``)."""
    noted, unshown = root / "noted", root / "unshown"
    for v in range(5400, 5410):
        _mem(tree, noted, "remember", "project/acme/db-port", str(v))
    _start(tree, noted)
    _mem(tree, noted, "remember", "project/acme/db-port", "6543")
    _mem(tree, unshown, "remember", "project/acme/editor", "helix, never vim")
    _start(tree, unshown)
    for v in range(5400, 5440):
        _mem(tree, unshown, "remember", "project/acme/db-port", str(v))
    return {"noted": noted, "unshown": unshown}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(Path(CWD), exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        stores = build(a.trees[0], Path(d))
        got: dict[tuple[str, str], list[float]] = {}
        for _r in range(a.rounds):
            for tree in a.trees:
                for name, home in stores.items():
                    out = subprocess.run([sys.executable, "-c", CHILD, tree, str(home), SID, CWD, str(a.n)],
                                         env={**os.environ, "PYTHONPATH": tree}, capture_output=True, text=True,
                                         check=True).stdout.split()
                    got.setdefault((tree, name), []).append(float(out[0]))
                    print(f"{tree}  {name:8s} {float(out[0]):.3f} ms/prompt  noted={out[1]}", flush=True)
        for (tree, name), xs in got.items():
            print(f"median {tree}  {name:8s} {sorted(xs)[len(xs) // 2]:.3f} ms/prompt")


if __name__ == "__main__":
    main()
