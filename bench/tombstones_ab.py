"""CPU (user + sys of the child, ms) of ``mem forget --match`` (dry run) and
``mem remember --trust agent_observed`` on a store holding 2,000 fact
tombstones and 300 keys, two trees interleaved, medians of N (session 16,
branch fix16c: a ``--match`` plan reads every tombstone, and a lower-trust
write hashes its key once more, ``tombstones.hidden_key``)::

    python bench/tombstones_ab.py BASE_TREE BRANCH_TREE STORE [N]

STORE is made first when it does not exist (with BRANCH_TREE's code)."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys

MAKE = """
import sys
from objstore.core.objects import Tombstone, value_digest
from objstore.memory.facts import remember
from objstore.memory.opening import open_store
from objstore.memory.tombstones import put_tombstone
s = open_store(sys.argv[1])
with s.lock("bench"):
    for i in range(2000):
        put_tombstone(s, Tombstone(key=f"project/p{i % 20}/remembered/thing-{i}", value_sha256=value_digest(f"value {i}"),
                                   time=1770000000000 + i, reason="forget"))
    for i in range(300):
        remember(s, f"project/p{i % 20}/notes/n{i}", f"note number {i} about the build", command="bench")
"""
CMDS = {
    "forget --match (dry run)": lambda i: ["forget", "--match", "zebra-nothing-here", "--dry-run"],
    "remember --trust agent_observed": lambda i: ["remember", f"project/p1/notes/ab{i}", f"a value number {i} for the bench",
                                                  "--trust", "agent_observed"],
}


def cpu_ms(tree: str, store: str, args: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": tree, "MEM_HOME": store, "MEM_NO_HELPER": "1"}
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, "-m", "cmds", *args], cwd=tree, env=env, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{tree}: mem {' '.join(args)}: {p.stderr}")
    return (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000


def main(base: str, branch: str, store: str, n: int) -> None:
    if not os.path.exists(store):
        env = {**os.environ, "PYTHONPATH": branch, "MEM_HOME": store}
        subprocess.run([sys.executable, "-m", "cmds", "init"], cwd=branch, env=env, check=True, capture_output=True)
        subprocess.run([sys.executable, "-c", MAKE, store], cwd=branch, env=env, check=True)
    for label, make in CMDS.items():
        got: dict[str, list[float]] = {base: [], branch: []}
        for i in range(n):
            for tree in (base, branch):
                got[tree].append(cpu_ms(tree, store, make(f"{len(got[tree])}{'b' if tree == base else 'f'}")))
        b, f = statistics.median(got[base]), statistics.median(got[branch])
        print(f"{label}: base {b:.1f} ms, branch {f:.1f} ms, ratio {f / b:.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 9)
