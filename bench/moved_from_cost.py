"""CPU microseconds of ``scope.moved_from`` (test30c T16: is a new path
identity a registered repository moved?) for a new repository without a
remote against a registry of ``N`` registered ones, in process (real
``git init`` folders in a temp directory deleted after); what registering
a folder the first time pays (docs/benchmarks.md, "Session 31 (branch
`reg31`)").

    python bench/moved_from_cost.py 8 100
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from objstore.memory.opening import open_store
from objstore.memory.gitident import identity_of
from objstore.memory.scope import moved_from, read_registry, register_project

CALLS = 2000


def cost(n: int) -> float:
    """CPU µs per ``moved_from`` call with ``n`` registered repositories."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        s = open_store(d / "store", create=True)
        for i in range(n):
            p = d / f"r{i}" / "api"
            p.mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(p)], check=True, timeout=60)
            register_project(s, p)
        new = d / "new" / "api"
        new.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(new)], check=True, timeout=60)
        ident, r = identity_of(new), read_registry(s.root)
        c0 = time.process_time()
        for _ in range(CALLS):
            moved_from(ident, r)
        s.close()
        return (time.process_time() - c0) / CALLS * 1e6


def main() -> None:
    for arg in sys.argv[1:] or ["8", "100"]:
        n = max(0, min(int(arg), 1000))
        print(f"{n} repos: {cost(n):.1f} us cpu per moved_from")


if __name__ == "__main__":
    main()
