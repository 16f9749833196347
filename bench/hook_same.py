#!/usr/bin/env python3
"""Whether two source trees inject the same memory into the same prompts
(a change meant to make the prompt hook faster must not change what it
adds to a prompt; docs/benchmarks.md, "Session 24 (branch `lat24`)").

    python bench/hook_same.py --store STORE --tree base=/path --tree branch=. [--corpus DIR] [--prompt P ...]

For each prompt (default: :data:`PROMPTS`, plus the ``fact`` and ``query``
of each needle of ``--corpus``'s ``needles.json``) and each working
directory of :data:`CWDS` (projects of the benchmark corpus, and one of no
project), runs ``mem hook claude-code`` with a UserPromptSubmit event in a
new process per tree (``PYTHONPATH`` = the tree, ``MEM_HOME`` = STORE,
``MEM_NO_CAPTURE=1`` and ``MEM_NO_HELPER=1``: the prompt is not stored and
the store's resident helper does not answer) and compares stdout and the
exit status byte for byte.  Each tree's event has a session id of its own
(a session's injection state says what it was already given).  Prints one
line per event, ``same`` or ``DIFFERENT``; exits 1 when any differ.
``--tree-store NAME=STORE``: tree NAME on its own store, as it wrote it (a
format change an older tree cannot read; docs/benchmarks.md, Session 26
(sz26)).  ``--capture``: capture on (each prompt stored, a "remember that
…" prompt's fact written) and inline (``MEM_HOOK_FORK=0``: the next event
never races a capture child), as ``bench/run.py``'s hook row stores
prompts; give each tree its own copy of the store with ``--tree-store``
(the trees' events then share their session ids: an injected turn names its
session).  An event that differs is marked when a tree's hook log says it
reached its budget (a loaded machine).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

PROMPTS = ("why does the ledgerly migration fail on the staging database?",
           "what port does the api listen on now?", "fix the flaky auth test in tuzadez",
           "remind me what we decided about the profile rollout", "the database migration failed again",
           "which test runner do we use", "cache invalidation bug in the api", "retry the docker build",
           "memory leak in the worker", "merge conflict in the config")
CWDS = ("/workspace/ledgerly", "/home/ana/code/acme-web", "/Users/sam/work/visionkit", "/home/dev/src/lakehouse-etl",
        "/tmp")


def _timed_out(store: str, session: str) -> bool:
    """Whether the store's hook log says the event of ``session`` reached its
    budget (``HookTimeout``): its answer is then empty or partial, on a
    loaded machine, whatever the tree."""
    try:
        with open(os.path.join(store, "logs", "hooks.log"), encoding="utf-8", errors="replace") as f:
            return any(f" {session} " in ln and "HookTimeout" in ln for ln in f)
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH (two or more)")
    ap.add_argument("--corpus", type=Path, help="a bench/gen_corpus.py corpus: its needles are prompts too")
    ap.add_argument("--tree-store", action="append", default=[], metavar="NAME=STORE",
                    help="the store tree NAME runs on instead of --store (a store written by that tree, "
                         "when the trees write different formats; repeatable; as bench/startup.py's)")
    ap.add_argument("--prompt", action="append")
    ap.add_argument("--capture", action="store_true",
                    help="capture on, inline (MEM_HOOK_FORK=0); each tree on its own store copy (--tree-store)")
    a = ap.parse_args(argv)
    if a.capture and len(set(dict(s.split("=", 1) for s in a.tree_store).values())) < len(a.tree):
        ap.error("--capture writes the store: give each tree its own copy (--tree-store NAME=STORE)")
    stores = dict(s.split("=", 1) for s in a.tree_store)
    trees = [t.split("=", 1) for t in a.tree]
    prompts = list(a.prompt or PROMPTS)
    if a.corpus and (a.corpus / "needles.json").exists():
        for n in json.loads((a.corpus / "needles.json").read_text()):
            prompts += [n["fact"], n["query"]]
    run = uuid.uuid4().hex[:8]
    differ = injected = total = 0
    for i, prompt in enumerate(prompts):
        for cwd in CWDS:
            outs = []
            for name, tree in trees:
                # with --capture each tree has its store: one id for both (an injected turn names its session)
                sid = f"same-{run}-{total}" if a.capture else f"same-{run}-{name}-{total}"
                event = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": sid,
                                    "cwd": cwd, "transcript_path": "/nonexistent.jsonl", "prompt": prompt})
                env = dict(os.environ, MEM_HOME=stores.get(name, a.store), PYTHONPATH=os.path.abspath(tree),
                           MEM_NO_HELPER="1", **({"MEM_HOOK_FORK": "0"} if a.capture else {"MEM_NO_CAPTURE": "1"}))
                p = subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], env=env, cwd="/",
                                   input=event.encode(), capture_output=True)
                outs.append((p.returncode, p.stdout))
            same = all(o == outs[0] for o in outs)
            late = [] if same else [name for name, _t in trees if _timed_out(
                stores.get(name, a.store), f"same-{run}-{total}" if a.capture else f"same-{run}-{name}-{total}")]
            total += 1
            differ += not same
            injected += bool(outs[0][1].strip())
            print(f"{'same' if same else 'DIFFERENT'}  {len(outs[0][1]):6d} B  {cwd}  {prompt[:60]!r}"
                  + (f"  (budget reached: {', '.join(late)})" if late else ""))
    print(f"{differ} of {total} events differ ({injected} injected something)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
