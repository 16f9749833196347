"""CPU of ``mem import claude-code CORPUS`` into a new store that holds one ``forget --match`` text (or none),
for each source tree in turn, rounds interleaved (imp43; txt42's method): the process's and its children's
user + system CPU (``os.wait4``), the load, and the store's size::

    python bench/import_rule_cpu.py TREE [TREE ...] [--rounds N] [--corpus DIR] [--no-rule] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

PY = sys.executable


def run(tree: str, home: str, args: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=tree, MEM_HOME=home)
    p = subprocess.Popen([PY, "-m", "cmds", *args], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _pid, status, ru = os.wait4(p.pid, 0)
    if status:
        sys.exit(f"{tree}: mem {' '.join(args)} failed: {p.stderr.read().decode()[-2000:]}")
    return ru.ru_utime + ru.ru_stime


def size(d: str) -> int:
    return sum(os.path.getsize(os.path.join(a, f)) for a, _, fs in os.walk(d) for f in fs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--work", default="/tmp/import-rule-cpu")
    ap.add_argument("--no-rule", action="store_true")
    a = ap.parse_args()
    for r in range(a.rounds):
        for k, tree in enumerate(a.trees):
            home = os.path.join(a.work, f"s{k}")
            shutil.rmtree(home, ignore_errors=True)
            os.makedirs(a.work, exist_ok=True)
            run(tree, home, ["init"])
            if not a.no_rule:
                run(tree, home, ["forget", "--match", "Zephyrine Quillborough", "--yes"])
            t = time.time()
            cpu = run(tree, home, ["import", "claude-code", a.corpus])
            print(f"round {r} {tree}: CPU {cpu:.2f} s, wall {time.time() - t:.1f} s, load {os.getloadavg()[0]:.1f},"
                  f" store {size(home)} B", flush=True)


if __name__ == "__main__":
    main()
