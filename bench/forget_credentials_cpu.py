"""CPU of ``mem forget --credentials --dry-run`` (session 18, lane fix18:
every stored fact version and turn redacted again with today's rules, and
each old cut tried as a credential's start) on a store, against ``mem fsck``
on the same store (which also reads every object), as real processes,
interleaved, children's CPU (user + sys), medians of ``--rounds``.

    PYTHONPATH=. MEM_HOME=/tmp/fix18/old-store python bench/forget_credentials_cpu.py --rounds 9

The store: ``mem import claude-code /tmp/bench-corpus`` run by a mem before
session 18 (9b72861), so its tool results carry the old ``…[cut N chars]``
marks.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys

CMDS = {"forget --credentials --dry-run": ["forget", "--credentials", "--dry-run"], "fsck": ["fsck"]}


def cpu(args: list[str]) -> float:
    """Children's CPU seconds (user + sys) of one ``mem`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "cmds", *args], check=False, capture_output=True,
                   env={**os.environ, "MEM_NO_HELPER": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    got: dict[str, list[float]] = {k: [] for k in CMDS}
    for _ in range(a.rounds):
        for name, args in CMDS.items():
            got[name].append(cpu(args))
    med = {k: statistics.median(v) for k, v in got.items()}
    for k, v in med.items():
        print(f"{k:34} median CPU {v:6.2f} s")
    print(f"ratio forget --credentials / fsck: {med['forget --credentials --dry-run'] / med['fsck']:.2f}")


if __name__ == "__main__":
    main()
