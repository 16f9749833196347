#!/usr/bin/env python3
"""CPU of chosen functions of the importing process's main thread, in a whole corpus import (imp41, issue 12):

    cd /tmp && PYTHONPATH=TREE python bench/import_main_parts.py MODULE:QUALNAME ... [--corpus DIR]

Imports ``--corpus`` (default ``/tmp/bench-corpus``) in this process into a new store under a temporary folder
(removed after) with each named function (``objstore.memory.appender:TurnAppender.write_next``) wrapped to add up
its ``time.thread_time`` (inclusive, the thread that calls it) and its calls; prints the main thread's CPU, the
process's (the index's and the pack's threads included; the parse children not), and each function's.  A name
another module imported with ``from … import`` is wrapped only where it is looked up through its module; a
generator is timed only for its creation.  The wrapper adds ~1 µs a call.  Measures; changes nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import shutil
import sys
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("funcs", nargs="+")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    a = ap.parse_args()
    acc: dict[str, list] = {}

    def wrap(f, name):
        def timed(*args, **kw):
            t = time.thread_time()
            try:
                return f(*args, **kw)
            finally:
                e = acc.setdefault(name, [0.0, 0])
                e[0] += time.thread_time() - t
                e[1] += 1
        return timed

    for name in a.funcs:
        mod, _, qual = name.partition(":")
        owner = importlib.import_module(mod)
        *path, attr = qual.split(".")
        for p in path:
            owner = getattr(owner, p)
        setattr(owner, attr, wrap(getattr(owner, attr), name))
    home = tempfile.mkdtemp(prefix="import-main-parts-")
    os.environ.update(MEM_HOME=home, MEM_AGENT="0")
    sys.argv = ["mem", "import", "claude-code", a.corpus, "--json"]
    from cmds.entry import entry
    t0 = time.thread_time()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            entry()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"main thread {time.thread_time() - t0:.3f} s, process {time.process_time():.3f} s")
    for name, (t, n) in acc.items():
        print(f"{t:8.3f} s {n:7d}  {name}")


if __name__ == "__main__":
    main()
