"""The pack writer's line pass (``packlines.LinePass.strip``) of a bulk import, replayed alone (imp39, issue 12):

    PYTHONPATH=<tree> python bench/linepass_replay.py collect OUT.pkl [CORPUS]
    python bench/linepass_replay.py time OUT.pkl TREE [TREE ...] [--rounds N]
    PYTHONPATH=<tree> python bench/linepass_replay.py run OUT.pkl --passes N   # for callgrind

``collect`` imports ``CORPUS`` (default ``/tmp/bench-corpus``) in process into a new store under a temporary
folder and keeps every block of frames the import's ``pack-deflate`` thread hands ``LinePass.strip``, with the
pass it belongs to.  ``time`` replays them with each tree in turn (a new process per tree and round, rounds
interleaved): a new ``LinePass`` per pass, each block stripped in order and its chunk blocks taken, the CPU of
that (best of 3 in the process) and a digest of every stored frame, reference area and chunk block, which must be
the same for every tree (docs/benchmarks.md, "Session 39 (branch `imp39`)").  ``run``: ``--passes`` replays and
nothing else; under ``valgrind --tool=callgrind`` the instructions of ``--passes 1`` less those of ``--passes 0``
are one replay's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import pickle
import shutil
import subprocess
import sys
import tempfile

CHILD = r"""
import hashlib, pickle, sys, time
from objstore.core import packlines
calls = pickle.load(open(sys.argv[1], "rb"))
def run():
    passes, h = {}, hashlib.blake2b(digest_size=8)
    t = time.process_time()
    for pid, frames in calls:
        lp = passes.get(pid)
        if lp is None:
            lp = passes[pid] = packlines.LinePass()
        stored, area = lp.strip(frames)
        for f in stored:
            h.update(f)
        h.update(area)
        for _first, content in lp.chunk_blocks():
            h.update(content)
    dt = time.process_time() - t
    for lp in passes.values():
        for _first, content in lp.chunk_blocks(final=True):
            h.update(content)
    return dt, h.hexdigest()
res = [run() for _ in range(3)]
print(f"{min(d for d, _ in res):.3f} {res[0][1]}")
"""


def collect(out: str, corpus: str) -> None:
    from objstore.core import packlines
    calls: list = []
    strip = packlines.LinePass.strip

    def kept(self, frames):
        calls.append((id(self), list(frames)))
        return strip(self, frames)
    packlines.LinePass.strip = kept
    home = tempfile.mkdtemp(prefix="linepass-")
    os.environ.update(MEM_HOME=home, MEM_AGENT="0")
    sys.argv = ["mem", "import", "claude-code", corpus, "--json"]
    from cmds.entry import entry
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            entry()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    with open(out, "wb") as fh:
        pickle.dump(calls, fh)
    print(f"{len(calls)} blocks in {len({c[0] for c in calls})} passes; {sum(len(c[1]) for c in calls):,} "
          f"frames, {sum(len(x) for c in calls for x in c[1]):,} bytes")


def run(path: str, passes: int) -> None:
    from objstore.core import packlines
    with open(path, "rb") as fh:
        calls = pickle.load(fh)
    for _ in range(passes):
        lines: dict = {}
        for pid, frames in calls:
            lp = lines.get(pid)
            if lp is None:
                lp = lines[pid] = packlines.LinePass()
            lp.strip(frames)
            lp.chunk_blocks()


def timed(path: str, trees: list[str], rounds: int) -> None:
    got: dict[str, list[tuple[float, str]]] = {t: [] for t in trees}
    for _ in range(rounds):
        for t in trees:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(t))
            r = subprocess.run([sys.executable, "-c", CHILD, path], env=env, capture_output=True, text=True,
                               check=True)
            cpu, digest = r.stdout.split()
            got[t].append((float(cpu), digest))
    for t, rs in got.items():
        print(f"{t}: CPU {' '.join(f'{c:.3f}' for c, _ in rs)} s (min {min(c for c, _ in rs):.3f}); "
              f"digest {' '.join(sorted({d for _, d in rs}))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out")
    c.add_argument("corpus", nargs="?", default="/tmp/bench-corpus")
    r = sub.add_parser("run")
    r.add_argument("blocks")
    r.add_argument("--passes", type=int, default=1)
    t = sub.add_parser("time")
    t.add_argument("blocks")
    t.add_argument("trees", nargs="+")
    t.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if a.cmd == "collect":
        collect(a.out, a.corpus)
    elif a.cmd == "run":
        run(a.blocks, a.passes)
    else:
        timed(a.blocks, a.trees, a.rounds)


if __name__ == "__main__":
    main()
