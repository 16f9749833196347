#!/usr/bin/env python3
"""What forgetting an early turn of one long session costs (test26 V17): the
turns after it are written again (``docs/forget.md``, step 2), so the cost
follows the session's length after the forgotten turn.

Writes one Claude Code session of TURNS turns (100 random words each, turn
``i`` starts ``t<i> ``; seeded), imports it once with this tree, then for
each round copies that store (``cp -a``) once per tree and runs ``mem
forget --match "t99 " --yes`` in a child process with ``PYTHONPATH`` set to
the tree, the trees' order alternating (the child runs in WORKDIR: ``-c`` puts the
working directory first on ``sys.path``).  The match is trimmed to ``t99``:
turns #99, #990-999, #9900-9999 (and so on) are forgotten.  For each run it
reports the child's CPU (user + sys from ``wait4``), wall seconds, bytes
written (``ru_oublock`` x 512: the kernel's write accounting, as
``/proc/PID/io`` ``write_bytes``), the store's size on disk after the
forget and before any gc (allocated blocks), the forget's summary line and
``mem fsck``'s verdict; then the medians per tree.

Usage::

    python bench/forget_tail.py TURNS WORKDIR ROUNDS TREE [TREE...]
"""

from __future__ import annotations

import datetime
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def write_session(out: Path, n: int) -> Path:
    """One session of ``n`` alternating user/assistant turns under ``out``."""
    rng = random.Random(27)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
             for _ in range(5000)]
    t0 = datetime.datetime(2026, 11, 1, 9, 0, 0)
    sid = "5e55f00d-0000-4000-8000-%012d" % n
    d = out / "-home-dev-huge"
    d.mkdir(parents=True, exist_ok=True)
    parent = None
    with open(d / f"{sid}.jsonl", "w") as f:
        for i in range(n):
            text = f"t{i} " + " ".join(rng.choice(words) for _ in range(100))
            u = str(uuid.UUID(int=rng.getrandbits(128)))
            r = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/huge",
                 "sessionId": sid, "version": "2.1.42", "gitBranch": "main", "uuid": u,
                 "timestamp": (t0 + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")}
            if i % 2 == 0:
                r["type"], r["message"] = "user", {"role": "user", "content": text}
            else:
                r["type"], r["requestId"] = "assistant", "req_%024x" % i
                r["message"] = {"model": "claude-sonnet-4-5", "id": "msg_%024x" % i, "type": "message",
                                "role": "assistant", "content": [{"type": "text", "text": text}],
                                "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}
            parent = u
            f.write(json.dumps(r) + "\n")
    return out


def run_forget(tree: Path, home: Path) -> dict:
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "MEM_HOME": str(home), "HOME": str(home.parent),
           "MEM_AGENT": "0", "LANG": "C.UTF-8"}
    w = time.monotonic()
    p = subprocess.Popen([sys.executable, "-c", "import sys; from cmds.entry import entry; sys.exit(entry())",
                          "forget", "--match", "t99 ", "--yes"], env=env, cwd=home.parent,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # read the pipes in order and reap the child ourselves (wait4: its rusage alone)
    out = p.stdout.read()
    err = p.stderr.read()
    _pid, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - w
    size = sum(f.stat().st_blocks * 512 for f in home.rglob("*") if f.is_file() and not f.is_symlink())
    fsck = subprocess.run([sys.executable, "-c", "import sys; from cmds.entry import entry; sys.exit(entry())",
                           "fsck"], env=env, cwd=home.parent, capture_output=True, text=True, timeout=3600)
    return {"cpu": ru.ru_utime + ru.ru_stime, "wall": wall, "written": ru.ru_oublock * 512, "size": size,
            "rc": p.returncode, "said": (out + err).decode(errors="replace").strip().splitlines()[-1:],
            "fsck": fsck.stdout.strip().splitlines()[-1:] if fsck.stdout.strip() else fsck.stderr.strip()[-200:]}


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    turns, work, rounds = int(argv[0]), Path(argv[1]), int(argv[2])
    trees = [Path(t).resolve() for t in argv[3:]]
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / f"corpus-{turns}"
    if not corpus.exists():
        write_session(corpus, turns)
    base = work / f"store-{turns}"
    if not base.exists():
        env = {"PYTHONPATH": str(HERE), "PATH": "/usr/bin:/bin", "MEM_HOME": str(base), "HOME": str(work),
               "MEM_AGENT": "0", "LANG": "C.UTF-8"}
        subprocess.run([sys.executable, "-c", "import sys; from cmds.entry import entry; sys.exit(entry())",
                        "import", "claude-code", str(corpus)], env=env, cwd=work, check=True, capture_output=True)
    before = sum(f.stat().st_blocks * 512 for f in base.rglob("*") if f.is_file())
    print(f"{turns} turns, store {before:,} B before the forget; load {os.getloadavg()}", flush=True)
    got: dict[Path, list[dict]] = {t: [] for t in trees}
    for i in range(rounds):
        for tree in (trees if i % 2 == 0 else trees[::-1]):
            home = work / f"run-{i}"
            shutil.rmtree(home, ignore_errors=True)
            subprocess.run(["cp", "-a", str(base), str(home)], check=True)
            r = run_forget(tree, home)
            got[tree].append(r)
            print(f"round {i} {tree}: {r['cpu']:.2f} s CPU, {r['wall']:.1f} s wall, {r['written'] / 1e6:.1f} MB "
                  f"written, store {r['size']:,} B; exit {r['rc']} {r['said']}; fsck {r['fsck']}; "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
            shutil.rmtree(home)
    for tree, rows in got.items():
        med = {k: statistics.median(r[k] for r in rows) for k in ("cpu", "wall", "written", "size")}
        print(f"median {tree}: {med['cpu']:.2f} s CPU, {med['wall']:.1f} s wall, {med['written'] / 1e6:.1f} MB "
              f"written, store {med['size']:,} B (n={len(rows)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
