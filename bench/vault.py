#!/usr/bin/env python3
"""Benchmark sealing and reading sealed values (``docs/benchmarks.md``, "Vault").

Measured, each the median of ``--runs`` samples:

* ``encrypt 1 KB``: :func:`objstore.vault.sealed.encrypt_value` of a 1,024-byte
  value to an X25519 recipient, and to a post-quantum hybrid recipient
  (where ML-KEM-768 is available), in a warm process: the cost of sealing
  itself, after start-up.
* ``remember_sealed 1 KB``: the whole library write in a warm process:
  lock, encryption, the object (zlib + fsync), the ref (fsync) and the reflog
  line (fsync).
* ``mem remember --sensitivity secret`` as a new process, next to a plain
  ``mem remember`` (the difference is mostly ``import cryptography``).
* ``open the vault``: scrypt at the default work factor 18 (once; it costs
  about a second by design).

Usage::

    python bench/vault.py [--runs 200] [--procs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PASSPHRASE = "benchmark passphrase 1234"


def _median_us(fn, runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--procs", type=int, default=15)
    args = ap.parse_args()

    from objstore.vault import age, identity, sealed as vault
    from objstore.memory.opening import open_store

    value = "v" * 1024
    rows = []
    _, x_rcpt = age.generate_x25519()
    rows.append(("encrypt 1 KB to X25519 (warm process)", f"{_median_us(lambda: vault.encrypt_value(x_rcpt, value), args.runs):.0f} µs"))
    if age.hybrid_supported():
        _, pq_rcpt = age.generate_hybrid()
        rows.append(("encrypt 1 KB to ML-KEM-768+X25519 (warm process)",
                     f"{_median_us(lambda: vault.encrypt_value(pq_rcpt, value), args.runs):.0f} µs"))

    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "store"
        store = open_store(root, create=True)
        t = time.perf_counter()
        identity.init_vault(store, PASSPHRASE)
        init_s = time.perf_counter() - t
        n = [0]

        def write():
            n[0] += 1
            vault.remember_sealed(store, f"user/bench/k{n[0] % 50}", value)
        rows.append(("remember_sealed 1 KB, durable (warm process)", f"{_median_us(write, args.runs) / 1000:.2f} ms"))
        t = time.perf_counter()
        identity.open_identity(store, PASSPHRASE)
        rows.append(("open the vault (scrypt 2^18)", f"{time.perf_counter() - t:.2f} s"))
        rows.append(("mem vault init (scrypt 2^18, library)", f"{init_s:.2f} s"))
        store.close()

        env = dict(os.environ, MEM_HOME=str(root))

        def proc(argv) -> float:
            times = []
            for i in range(args.procs):
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "cmds", *argv(i)], env=env, cwd=REPO, check=True,
                               stdout=subprocess.DEVNULL)
                times.append(time.perf_counter() - t)
            return statistics.median(times) * 1000
        plain = proc(lambda i: ["remember", f"user/plain/k{i}", value])
        sealed = proc(lambda i: ["remember", f"user/sealed/k{i}", value, "--sensitivity", "secret"])
        rows.append(("mem remember 1 KB, new process", f"{plain:.0f} ms"))
        rows.append(("mem remember 1 KB --sensitivity secret, new process", f"{sealed:.0f} ms"))

    print("| what | median |\n|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
