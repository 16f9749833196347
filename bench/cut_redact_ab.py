"""CPU of the tool-result cut on a corpus's over-limit tool results (tester
finding T19, session 17): A = the old cut (``text[:4000]``, then the turn
writer's redaction of the head), B = :func:`objstore.core.redact.redact_cut`
(redacts up to 4,000 + 16 Ki characters to find a credential crossing the
cut, cuts before it), then the writer's redaction of the head.
Interleaved A/B, process CPU, medians of ``--rounds``.

    PYTHONPATH=. python bench/cut_redact_ab.py /tmp/bench-corpus --rounds 9
"""

from __future__ import annotations

import argparse
import glob
import json
import statistics
import time

from objstore.capture.transcript import TOOL_RESULT_MAX_CHARS as N
from objstore.core.redact import redact, redact_cut


def tool_results(root: str) -> list[str]:
    """Every Claude Code tool result text over N characters under ``root``."""
    out = []
    for f in glob.glob(f"{root}/*/*.jsonl"):
        for ln in open(f, encoding="utf-8", errors="replace"):
            if '"tool_result"' not in ln:
                continue
            try:
                c = (json.loads(ln).get("message") or {}).get("content")
            except (ValueError, AttributeError):
                continue
            for b in c if isinstance(c, list) else ():
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    x = b.get("content")
                    if isinstance(x, list):
                        x = "\n".join(i.get("text", "") for i in x if isinstance(i, dict))
                    if isinstance(x, str) and len(x) > N:
                        out.append(x)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    texts = tool_results(a.corpus)

    def old() -> None:
        for t in texts:
            redact(f"{t[:N]}…[cut {len(t) - N} chars]")

    def new() -> None:
        for t in texts:
            head, n = redact_cut(t, N)
            redact(f"{head}…[cut {n} chars]")

    cpu: dict[str, list[float]] = {"A": [], "B": []}
    for _ in range(a.rounds):
        for name, fn in (("A", old), ("B", new)):
            t0 = time.process_time()
            fn()
            cpu[name].append(time.process_time() - t0)
    ma, mb = statistics.median(cpu["A"]), statistics.median(cpu["B"])
    print(f"{len(texts)} tool results over {N} chars; A (cut, then redact) {ma:.3f} s, "
          f"B (redact_cut) {mb:.3f} s CPU; B/A {mb / ma:.2f}, +{mb - ma:.3f} s")


if __name__ == "__main__":
    main()
