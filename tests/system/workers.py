"""Worker processes for the concurrency and crash tests (run as scripts:
``python tests/system/workers.py ROLE STORE ARGS…``).  Each prints ``ACK …`` lines,
flushed, after an operation returned, so the parent knows what was
acknowledged before it killed the worker."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from objstore.memory import facts  # noqa: E402
from objstore.core.store import Store  # noqa: E402
from objstore.memory.opening import open_store  # noqa: E402


def ack(*parts) -> None:
    sys.stdout.write("ACK " + json.dumps(parts) + "\n")
    sys.stdout.flush()


def writer(store: Store, name: str, n: int) -> None:
    """n versions of the shared key and n of its own key, alternating."""
    for i in range(n):
        facts.remember(store, "project/t/shared", f"{name} wrote shared value {i}")
        facts.remember(store, f"project/t/{name}", f"{name} own value {i}")
    ack("done", name)


def reader(store: Store, seconds: float) -> None:
    """Read the shared key in a loop: never an error, versions never go back."""
    last = 0
    end = time.monotonic() + seconds
    reads = 0
    while time.monotonic() < end:
        try:
            v = facts.current(store, "project/t/shared")
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ == "NotFound" and last == 0:
                continue
            ack("error", repr(e))
            return
        if v.fact.version < last:
            ack("error", f"version went back from {last} to {v.fact.version}")
            return
        last = v.fact.version
        reads += 1
    ack("reads", reads, last)


def gc_loop(store: Store, seconds: float) -> None:
    from objstore.core.gc import gc
    end = time.monotonic() + seconds
    runs = 0
    while time.monotonic() < end:
        gc(store, grace_s=0)
        runs += 1
        time.sleep(0.05)
    ack("gc", runs)


def victim(store: Store, op: str, seed: int, extra: str) -> None:
    """A loop of one kind of operation, to be SIGKILLed at a random moment."""
    i = 0
    if op == "remember":
        while True:
            key = f"project/c/k{(seed + i) % 5}"
            val = f"value s{seed} n{i} word{seed}x{i}"
            facts.remember(store, key, val)
            ack("remember", key, val)
            i += 1
    elif op == "remember-helper":   # as the resident helper: answer first, the index in its commit thread
        from cmds._helperserve import Committer
        committer = Committer()
        while True:
            key = f"project/c/k{(seed + i) % 5}"
            val = f"value s{seed} n{i} word{seed}x{i}"
            own = open_store(store.root, lock_timeout=120)
            later: list = []
            own.lock("remember").acquire()
            facts.remember(own, key, val, later=later)
            own.release_lock()
            ack("remember", key, val)   # the answer: object, owned entry, ref and reflog are durable
            assert committer.submit(later, own.close)
            i += 1
    elif op == "import":
        from objstore.capture.importer import import_claude_code
        while True:  # every other victim parses in a child process (objstore.capture.parseworker)
            r = import_claude_code(store, [extra], workers=seed % 2, reread=True)
            ack("import", r.turns_added)
            i += 1
    elif op == "gc":
        from objstore.core.gc import gc
        while True:
            gc(store, grace_s=0)
            ack("gc")
    elif op == "reindex":
        from objstore.retrieval.search import reindex
        while True:
            reindex(store)
            ack("reindex")
    elif op == "forget":
        from objstore.memory.forget import forget_key
        while True:
            key = f"project/f/k{seed}-{i}"
            facts.remember(store, key, f"canary{seed}q{i} one")
            facts.remember(store, key, f"canary{seed}q{i} two")
            forget_key(store, key)
            ack("forget", key, f"canary{seed}q{i}")
            i += 1


def main() -> None:
    role, home = sys.argv[1], sys.argv[2]
    store = open_store(home, lock_timeout=120, create=True)
    if role == "writer":
        writer(store, sys.argv[3], int(sys.argv[4]))
    elif role == "reader":
        reader(store, float(sys.argv[3]))
    elif role == "gc":
        gc_loop(store, float(sys.argv[3]))
    elif role == "victim":
        victim(store, sys.argv[3], int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else "")


if __name__ == "__main__":
    main()
