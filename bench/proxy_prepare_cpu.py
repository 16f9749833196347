"""CPU per ``objstore.integrations.proxy.prepare`` call, in process, for the
tree on ``PYTHONPATH``, on a fresh store of three facts: a tool-result
request of a known conversation (the cheapest kind: nothing recalled or
newly captured, the pinned block re-added), 300 calls after a warm-up, and
the first request of 100 new conversations (the pinned block rendered).
Prints one JSON line, microseconds per call.  Two trees alternately, medians
(docs/benchmarks.md, "Session 17 (branch ``srv17``)")::

    for i in $(seq 9); do for t in /tmp/srv17-base .; do
        PYTHONPATH=$t python bench/proxy_prepare_cpu.py; done; done
"""

from __future__ import annotations

import json
import tempfile
import time

from objstore import open_store
from objstore.integrations.proxy import prepare
from objstore.memory.facts import remember

SYSTEM = "You are Claude Code.\nWorking directory: /tmp/proxy-prepare/acme-api"


def main() -> None:
    with tempfile.TemporaryDirectory() as d, open_store(d, create=True) as store:
        for k, v in (("user/editor", "helix, never vim"), ("project/acme-api/db", "Postgres 16 on port 5433"),
                     ("user/shell", "zsh with starship")):
            remember(store, k, v)
        msgs = [{"role": "user", "content": "which postgres do we run locally?"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "postgres:16"}]}]
        raw = json.dumps({"model": "m", "system": SYSTEM, "messages": msgs}).encode()
        h = {"x-mem-session": "bench-1"}
        for _ in range(5):
            prepare(store, raw, h, capture=False)
        t = time.process_time()
        for _ in range(300):
            prepare(store, raw, h, capture=False)
        same = (time.process_time() - t) / 300 * 1e6
        firsts = [json.dumps({"model": "m", "system": SYSTEM,
                              "messages": [{"role": "user", "content": f"tool run {i}: list the files"}]}).encode()
                  for i in range(100)]
        t = time.process_time()
        for i, r in enumerate(firsts):
            prepare(store, r, {"x-mem-session": f"bench-new-{i}"}, capture=False)
        first = (time.process_time() - t) / 100 * 1e6
    print(json.dumps({"tool_result": round(same, 1), "first": round(first, 1)}))


if __name__ == "__main__":
    main()
