"""The tool calls of Claude Code transcripts that fetch a secret (red34b, test34 T5), and the CPU of
asking each call (``objstore.core.redact.fetched.fetches_secret``, what ``withhold.note_fetch`` asks of
every call a reader reads)::

    PYTHONPATH=<tree> python bench/fetch_calls.py [FOLDER ...]

Default folders: the shared transcripts and the 300-session bench corpus.  Prints the number of
calls, their characters, the calls that match (each printed with its result, so a change of the
table can be judged call by call) and the min/median CPU of 5 passes.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from objstore.core.redact.fetched import fetches_secret, redact_fetched

sys.path.insert(0, str(Path(__file__).resolve().parent))
from redact_decoded_hits import jsonl_records  # noqa: E402  (the one walk over the .jsonl files)

DEFAULT_ROOTS = ("/work/shared/data/transcripts", "/tmp/bench-corpus")


def main(roots: list[str]) -> None:
    inps: list[str] = []
    results: dict[str, str] = {}
    ids: list[str] = []
    for _name, _i, rec in jsonl_records(roots):
        msg = rec.get("message") if isinstance(rec, dict) else None
        content = msg.get("content") if isinstance(msg, dict) else None
        for b in content if isinstance(content, list) else ():
            if isinstance(b, dict) and b.get("type") == "tool_use":
                inps.append(json.dumps(b.get("input"), ensure_ascii=False, sort_keys=True))
                ids.append(str(b.get("id")))
            elif isinstance(b, dict) and b.get("type") == "tool_result":
                c = b.get("content")
                results[str(b.get("tool_use_id"))] = c if isinstance(c, str) else json.dumps(c)
    fetches_secret("x")   # the patterns built
    times = []
    for _ in range(5):
        t0 = time.process_time()
        hits = [i for i, call in enumerate(inps) if fetches_secret(call)]
        times.append(time.process_time() - t0)
    for i in hits:
        body = results.get(ids[i], "")
        verdict = "redacted" if redact_fetched(body) != body else "kept"
        print(f"{verdict}: {inps[i][:200]} => {body[:120]!r}")
    times.sort()
    print(f"{len(inps)} calls, {sum(map(len, inps))} chars, {len(hits)} fetch a secret; "
          f"CPU min/median {times[0]:.3f}/{times[2]:.3f} s")


if __name__ == "__main__":
    main(sys.argv[1:] or list(DEFAULT_ROOTS))
