#!/usr/bin/env python3
"""A store to time the session block's rule 8 (``laterturns.later_turns``):
20 facts of project ``acme-web`` that state a value, then a later 30-turn
session of that project in which the person changes two of them (the api's
port, the staging database's port) and says nothing else with a change
word, so the block compares every fact with the two turns (the "few"
path) and marks two (docs/benchmarks.md, "Session 27 (branch `lat27`)").

    cp -a BENCH_STORE /tmp/lt/store        # e.g. the bench corpus imported
    python bench/later_turns_store.py --mem mem --store /tmp/lt/store
    mkdir /tmp/lt/acme-web && cd /tmp/lt/acme-web && MEM_HOME=/tmp/lt/store mem context

The session's transcript is written beside the store (``STORE.transcripts``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import rank_store   # (bench/ is on sys.path: the script's folder)

#: the two turns that change a fact (the others hold no change word)
CHANGES = {0: "Heads up: the api moved to port 9090 now, 8080 is gone.",
           10: "The staging database switched to port 6543 this morning."}


def facts() -> dict[str, str]:
    """key name -> value of the 20 facts."""
    out = {f"setting{i}": f"The setting{i} limit is {10 + i * 7} requests per {['minute', 'hour', 'second', 'day'][i % 4]}"
           for i in range(18)}
    out["api-port"] = "The api listens on port 8080"
    out["db-port"] = "The staging database runs on port 5432"
    return out


def transcript(folder: Path) -> Path:
    """The later session as a Claude Code transcript in ``folder`` (dated 2027, after the facts)."""
    turns = [("user" if i % 2 == 0 else "assistant", CHANGES.get(i, f"turn {i} about the modal layout and the router"))
             for i in range(30)]
    return rank_store.transcript(folder, turns, sid=4242, first_uuid=90000,
                                 stamp=lambda i: f"2027-01-0{1 + i // 10}T10:{i:02d}:00.000Z")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mem", default="mem", help="the mem command to write with")
    ap.add_argument("--store", type=Path, required=True, help="a store (MEM_HOME) to add the facts and session to")
    args = ap.parse_args()
    tx = Path(f"{args.store}.transcripts") / "-home-ana-code-acme-web"
    if tx.exists():
        raise SystemExit(f"later_turns_store: {tx} exists")
    env = {**os.environ, "MEM_HOME": str(args.store), "MEM_NO_HELPER": "1"}
    env.pop("MEM_AGENT", None)
    for name, value in facts().items():
        subprocess.run([args.mem, "remember", f"project/acme-web/{name}", value], env=env, check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run([args.mem, "import", "claude-code", str(transcript(tx))], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
