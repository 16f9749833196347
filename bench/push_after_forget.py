"""What a push after a forget sends (fresh7 F9), and what the other machine's
pull receives: a store pushed to a fresh folder remote and cloned, two turns
of one session forgotten, then ``mem push`` and, on the clone, ``mem pull``.

    python bench/push_after_forget.py --store STORE --work /tmp/paf [--src CHECKOUT]

``STORE``: an imported store (``mem --home STORE import claude-code
/tmp/bench-corpus``), copied, never changed.  ``--src``: the checkout whose
``cmds``/``objstore`` run (default: this one), so two checkouts compare on
the same store in one sitting.  Prints each step's ``--json`` counts and its
CPU time (user+sys of the ``mem`` process).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

RUN = "import sys; from cmds.entry import entry; sys.exit(entry())"


def mem(src: Path, *args: str) -> tuple[dict | str, float]:
    """Run ``mem ARGS`` from checkout ``src``; its stdout (parsed when JSON) and its CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # cwd "/": '-c' puts the working directory before PYTHONPATH on sys.path
    out = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=True,
                         cwd="/", env={**os.environ, "PYTHONPATH": str(src)}).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    try:
        return json.loads(out), cpu
    except ValueError:
        return out, cpu


def show(what: str, res: dict, cpu: float, *fields: str) -> None:
    print(f"{what}: " + ", ".join(f"{f} {res[f]:,}" for f in fields) + f"; {cpu:.2f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True, type=Path)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--turns", default="5,9", help="which turns of the session to forget (0-based, oldest first)")
    args = ap.parse_args()
    w = args.work
    shutil.rmtree(w, ignore_errors=True)
    w.mkdir(parents=True)
    a, b, remote = w / "a", w / "b", w / "remote"
    shutil.copytree(args.store, a)
    shutil.rmtree(a / "cache" / "remotes", ignore_errors=True)
    (a / "remotes.json").unlink(missing_ok=True)
    remote.mkdir()
    mem(args.src, "--home", str(a), "remote", "add", "origin", str(remote))
    res, cpu = mem(args.src, "--home", str(a), "push", "--json")
    show("first push", res, cpu, "objects_sent", "bytes_sent", "packs_sent")
    mem(args.src, "--home", str(a), "remote", "key", "export", "-o", str(w / "sync.key"))
    res, cpu = mem(args.src, "--home", str(b), "clone", str(remote), "--key", str(w / "sync.key"), "--json")
    show("clone", res, cpu, "objects_received", "bytes_received", "packs_received")
    # the session in the middle of the listing (by id), and its turns oldest first, read again after each forget
    probe = ("import sys; from objstore import open_store, list_sessions; from objstore.core.objects import Turn\n"
             "st = open_store(sys.argv[1]); ss = sorted(list_sessions(st), key=lambda s: s.id)\n"
             "s = ss[len(ss) // 2]; oid, ch = st.refs.read('sessions/' + s.id), []\n"
             "while oid: ch.append(oid); oid = st.get(oid, Turn).parent\n"
             "print(ch[::-1][int(sys.argv[2])])")
    for i in args.turns.split(","):
        oid = subprocess.run([sys.executable, "-c", probe, str(a), i], capture_output=True, text=True, check=True,
                             cwd="/", env={**os.environ, "PYTHONPATH": str(args.src)}).stdout.strip()
        mem(args.src, "--home", str(a), "forget", oid, "--yes")
    res, cpu = mem(args.src, "--home", str(a), "push", "--json")
    show("push after the forget", res, cpu, "objects_sent", "bytes_sent", "packs_sent", "remote_packs_rewritten")
    res, cpu = mem(args.src, "--home", str(b), "pull", "--json")
    show("pull on the clone", res, cpu, "objects_received", "bytes_received", "packs_received")
    packs = list((remote / "packs").iterdir())
    print(f"remote: {len(packs)} bundles, {sum(p.stat().st_size for p in packs):,} bytes")


if __name__ == "__main__":
    main()
