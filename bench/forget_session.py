#!/usr/bin/env python3
"""Wall and CPU seconds of ``forget(store, session=SID)`` and of the
capture filter, main against this tree in one run (fgs10: a session forget
now also reads every other session's cached state, to take the live copies
of its record-id turns; capture checks each record against the one turn
rule, ``tombstones.TurnForgets``).

Each round copies the store at BASE twice (``cp -a``) and forgets the same
session in each copy, once with the code at OLD (``PYTHONPATH``) and once
with this tree, the order alternating; a child process runs each forget and
reports ``time.process_time`` (CPU) and wall seconds of the call alone.
Then it times importing into each forgotten copy the forgotten session's
transcript under a new session id (its records are new to the store, so
every one goes through the capture filter: the old code blanks them all,
this tree blanks the record-id ones and keeps the prompts).

Usage::

    python bench/forget_session.py BASE OLD_SRC SID TRANSCRIPT_OF_SID [ROUNDS]
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CHILD = r"""
import json, sys, time
from objstore.memory.opening import open_store
from objstore.memory.forget import forget, plan_forget
from objstore.capture.importer import import_claude_code
home, sid, transcript = sys.argv[1:4]
with open_store(home) as s:
    c, w = time.process_time(), time.perf_counter()
    with s.lock("bench"):
        plan_forget(s, session=sid)
    pc, pw = time.process_time() - c, time.perf_counter() - w
    c, w = time.process_time(), time.perf_counter()
    r = forget(s, session=sid)
    fc, fw = time.process_time() - c, time.perf_counter() - w
    c, w = time.process_time(), time.perf_counter()
    res = import_claude_code(s, [transcript], reread=True)
    ic, iw = time.process_time() - c, time.perf_counter() - w
print(json.dumps({"plan_cpu": pc, "plan_wall": pw, "forget_cpu": fc, "forget_wall": fw, "turns": r.plan.counts()["turns"],
                  "tombstones": len(r.tombstones), "import_cpu": ic, "import_wall": iw,
                  "import_seen": res.turns_seen}))
"""


def run(src: Path, home: Path, sid: str, transcript: str) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD, str(home), sid, transcript], capture_output=True, text=True,
                       env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "MEM_AGENT": "0"}, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    base, old, sid, src_file = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    got: dict[str, list[dict]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory(prefix="forget-session-") as tmp:
        copy = Path(tmp) / "copy" / "00000000-0000-4000-8000-00000000f510.jsonl"
        copy.parent.mkdir()
        copy.write_text(src_file.read_text().replace(sid, copy.stem))
        transcript = str(copy)
        for i in range(rounds):
            order = [("old", old), ("new", HERE)] if i % 2 == 0 else [("new", HERE), ("old", old)]
            for name, src in order:
                home = Path(tmp) / f"{name}-{i}"
                subprocess.run(["cp", "-a", str(base), str(home)], check=True)
                got[name].append(run(src, home, sid, transcript))
                shutil.rmtree(home)
    for name, rows in got.items():
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(f"{name}: plan {med['plan_wall']:.3f} s wall / {med['plan_cpu']:.3f} s CPU; forget "
              f"{med['forget_wall']:.3f} s wall / {med['forget_cpu']:.3f} s CPU ({med['turns']:.0f} turns, "
              f"{med['tombstones']:.0f} tombstones); import of the copy {med['import_wall']:.3f} s wall / "
              f"{med['import_cpu']:.3f} s CPU ({med['import_seen']:.0f} records)  [median of {len(rows)}]")


if __name__ == "__main__":
    main()
