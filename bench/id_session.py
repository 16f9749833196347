#!/usr/bin/env python3
"""A one-session Claude Code transcript of N similar prompts that differ in
their identifiers (test27 V31's shape: "turn I please refactor module
m<I % 97> and fix flaky test t<I>", each answered "done with turn I: changed
m<I % 97>.py and the test"), timestamps shuffled over two days (seeded), to
stdout.  Recall of "flaky test t<I>" must rank turn I's prompt first
(timeline rule 12; docs/benchmarks.md, "Session 28 (branch `rec28`)").

    python bench/id_session.py 4000 > DIR/p/s.jsonl; mem import claude-code DIR
    mem recall "flaky test t3998" --project big
"""

from __future__ import annotations

import datetime
import json
import random
import sys


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    rnd = random.Random(7)
    base = 1763510400  # 2025-11-19T00:00Z
    times = sorted(rnd.randrange(0, 2 * 86400) for _ in range(2 * n))
    rnd.shuffle(times)
    prev = None
    for i in range(n):
        for j, (role, txt) in enumerate((("user", f"turn {i} please refactor module m{i % 97} and fix flaky test t{i}"),
                                         ("assistant", f"done with turn {i}: changed m{i % 97}.py and the test"))):
            ts = datetime.datetime.fromtimestamp(base + times[2 * i + j], datetime.timezone.utc)
            uid = f"u{i}-{j}"
            print(json.dumps({"type": role, "sessionId": "big-s1", "uuid": uid, "parentUuid": prev, "cwd": "/tmp/big",
                              "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%SZ"),
                              "message": {"role": role,
                                          "content": txt if role == "user" else [{"type": "text", "text": txt}]}}))
            prev = uid
    return 0


if __name__ == "__main__":
    sys.exit(main())
