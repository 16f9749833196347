"""A remote after many small pushes (sync39): store A remembers one key and
pushes, ``--pushes`` times, to a folder remote (encrypted); then a new
machine clones it.  Prints one JSON document: the bundles the remote's
manifest names, the pushes' CPU seconds, and the clone's CPU seconds and
remote requests (reads, lists) with the bytes read.  Run it with each tree
on ``PYTHONPATH`` (the library in-process; scratch in a temporary folder)::

    PYTHONPATH=/work/main python bench/remote_rollup.py --pushes 200
    PYTHONPATH=/work/sync39 python bench/remote_rollup.py --pushes 200
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pushes", type=int, default=200)
    args = ap.parse_args()
    os.environ["MEM_AGENT"] = "0"
    from objstore import add_remote, clone, export_sync_key, open_store, push, remember
    from objstore.remote import transport
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "remote").mkdir()
        a = open_store(d / "a", create=True)
        spec = add_remote(a, "origin", str(d / "remote"))
        push_cpu = 0.0
        for i in range(args.pushes):
            remember(a, f"project/bench/k{i:04d}", f"value number {i} of the bench, port {8000 + i}")
            t0 = time.process_time()
            push(a, spec)
            push_cpu += time.process_time() - t0
        key = export_sync_key(a)
        a.close()
        calls = {"read": 0, "list": 0, "bytes": 0}
        read, lst = transport.FolderTransport.read, transport.FolderTransport.list

        def counted_read(self, name):
            data = read(self, name)
            calls["read"] += 1
            calls["bytes"] += len(data[0])
            return data

        def counted_list(self, prefix):
            calls["list"] += 1
            return lst(self, prefix)

        transport.FolderTransport.read, transport.FolderTransport.list = counted_read, counted_list
        t0 = time.process_time()
        b, _res = clone(d / "b", str(d / "remote"), key=key)
        clone_cpu = time.process_time() - t0
        b.close()
        transport.FolderTransport.read, transport.FolderTransport.list = read, lst
        bundles = len(list((d / "remote" / "packs").iterdir()))
        print(json.dumps({"pushes": args.pushes, "remote_bundles": bundles, "push_cpu_s": round(push_cpu, 2),
                          "clone_cpu_s": round(clone_cpu, 2), "clone_reads": calls["read"],
                          "clone_lists": calls["list"], "clone_bytes_read": calls["bytes"]}))


if __name__ == "__main__":
    main()
