"""Whether two source trees' ``mem import`` of one corpus store the same objects (a change meant to make the
import faster must not change what it stores)::

    python bench/import_same.py --tree base=/path --tree branch=. [--corpus DIR] [--work DIR]

For each tree (``NAME=PATH``, two), in a new process with ``PYTHONPATH`` = the tree and ``MEM_HOME`` =
``WORK/NAME`` (removed first): ``mem init`` (the second store then given the first's ``hash-key``: a
prompt's source key, and so its turn's id, is keyed by it), ``mem import claude-code CORPUS`` (default ``/tmp/bench-corpus``,
``bench/gen_corpus.py``), then ``mem fsck``, and the sorted ids of every object of the store
(``Store.iter_ids``).  Prints each tree's import CPU (the process and its children, user + system), its
fsck's counts, how many objects and a SHA-256 of the sorted ids (an object holding the time it was
written, a rollup's summary fact, by its other fields: :data:`IDS`); then ``same`` or ``DIFFERENT`` for the
fsck output and the ids (with how many ids each side alone holds); exits 1 when any differ.  The stores are
kept for ``bench/recall_same.py --tree-store`` and ``bench/search_same.py`` (idx44).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys

PY = sys.executable
#: an object's id, or for one holding the time it was written (``recorded_at``: a rollup's summary fact) a
#: SHA-256 of its other fields but ``parent`` (an earlier version's id, which holds that time too)
IDS = """
import hashlib, sys
from pathlib import Path
from objstore.core.store import Store
s = Store(Path(sys.argv[1]))
out = []
for oid in s.iter_ids():
    o = s.get(oid)
    if hasattr(o, "recorded_at"):
        oid = "t:" + hashlib.sha256(repr([(f, getattr(o, f)) for f in o.__slots__
                                          if f not in ("recorded_at", "parent")]).encode()).hexdigest()
    out.append(oid)
print("\\n".join(sorted(out)))
s.close()
"""


def run(tree: str, home: str, args: list[str]) -> str:
    """The stdout of ``mem ARGS`` run from ``tree`` on store ``home``; exits on a failure."""
    env = dict(os.environ, PYTHONPATH=tree, MEM_HOME=home)
    p = subprocess.run([PY, "-m", "cmds", *args], cwd=tree, env=env, capture_output=True, check=False)
    if p.returncode:
        sys.exit(f"{tree}: mem {' '.join(args)} exit {p.returncode}: {p.stderr.decode()[-2000:]}")
    return p.stdout.decode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH (two)")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--work", default="/tmp/import-same")
    a = ap.parse_args(argv)
    got = {}
    for spec in a.tree:
        name, tree = spec.split("=", 1)
        tree, home = os.path.abspath(tree), os.path.join(a.work, name)
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(a.work, exist_ok=True)
        run(tree, home, ["init"])
        if got:   # the first store's hash key: a prompt's source key ("cc:p:...") is keyed by it, so the ids too
            shutil.copyfile(os.path.join(a.work, next(iter(got)), "hash-key"), os.path.join(home, "hash-key"))
        before = os.times()
        run(tree, home, ["import", "claude-code", a.corpus])
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        fsck = run(tree, home, ["fsck"])
        ids = subprocess.run([PY, "-c", IDS, home], cwd=tree, env=dict(os.environ, PYTHONPATH=tree),
                             check=True, capture_output=True, text=True).stdout.split()
        digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]
        print(f"{name}: import CPU {cpu:.2f} s (load {os.getloadavg()[0]:.1f}), {len(ids)} objects, ids {digest}")
        print("  fsck: " + " | ".join(ln.strip() for ln in fsck.splitlines() if ln.strip()))
        got[name] = (fsck, set(ids))
    (na, (fa, ia)), (nb, (fb, ib)) = list(got.items())[:2]
    same_fsck, same_ids = fa == fb, ia == ib
    print(f"fsck output: {'same' if same_fsck else 'DIFFERENT'}")
    print(f"object ids: {'same' if same_ids else 'DIFFERENT'} ({len(ia - ib)} only in {na}, {len(ib - ia)} only in {nb})")
    return 0 if same_fsck and same_ids else 1


if __name__ == "__main__":
    sys.exit(main())
