"""CPU per ``objstore.integrations.proxy.identify`` call (what the proxy
reads from a request's headers and system prompt), in process, for the
tree on ``PYTHONPATH``: a Claude Code session header and an
``X-Mem-Project``, 2,000 calls.

``first``: every call a new session (a conversation's first request);
``same``: 20 sessions of 100 requests each (a conversation's later
requests).  Prints one JSON line, microseconds per call.  Run it for two
trees alternately and take medians (docs/benchmarks.md, "Session 17
(branch ``srv17``)")::

    for i in $(seq 9); do for t in /tmp/srv17-base .; do
        PYTHONPATH=$t python bench/proxy_identify.py; done; done
"""

from __future__ import annotations

import json
import tempfile
import time
import uuid

from objstore.integrations.proxy import identify

BODY = {"system": "You are Claude Code.\nWorking directory: /tmp/proxy-identify/acme-api",
        "messages": [{"role": "user", "content": "which postgres version does our db run?"}]}


def main() -> None:
    out = {}
    root = tempfile.mkdtemp(prefix="proxy-identify-")   # a store root with no project registry (identify reads it)
    for name, n_sessions in (("first", 2000), ("same", 20)):
        sids = [str(uuid.uuid4()) for _ in range(n_sessions)]
        hs = [{"x-claude-code-session-id": sids[i % n_sessions], "x-mem-project": "acme-api"} for i in range(2000)]
        identify({"x-mem-session": "warm"}, BODY, root)
        t = time.process_time()
        for h in hs:
            identify(h, BODY, root)
        out[name] = round((time.process_time() - t) / len(hs) * 1e6, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
