"""Benchmark of objstore.core.redact: 10 MB of mixed text, pathological 256 KB
lines, and the p50 of a typical 2 KB prompt.

    python bench/bench_redact.py
"""

from __future__ import annotations

import random
import statistics
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.redact import redact  # noqa: E402


def _timed(fn, *a) -> float:
    t = time.perf_counter()
    fn(*a)
    return time.perf_counter() - t


def main() -> None:
    rnd = random.Random(7)
    words = ["def", "return", "token", "password", "the", "config", "value", "user", "export", "curl", "-H",
             "Authorization:", "import", "os", "path", "secret", "key", "=", "(", ")", "http://example.com/a"]
    text = " ".join(rnd.choice(words) for _ in range(1_600_000))[:10_000_000]
    print(f"10 MB mixed text, one call: {_timed(redact, text):.2f} s")
    patho = {"a": "a" * 262_144, "=": "=" * 262_144, "eyJ": "eyJ" + "A" * 262_141, "x:": "x:" * 131_072,
             "token: ": "token: " * 37_449, "base64": "".join(rnd.choice(string.ascii_letters + "+/") for _ in range(262_144))}
    worst = max((min(_timed(redact, t) for _ in range(3)), n) for n, t in patho.items())
    print(f"worst pathological 256 KB line: {worst[0] * 1000:.1f} ms ({worst[1]!r})")
    prompt = " ".join(rnd.choice(words) for _ in range(400))[:2000]
    runs = [_timed(redact, prompt) for _ in range(2000)]
    print(f"2 KB prompt p50: {statistics.median(runs) * 1e6:.0f} µs")


if __name__ == "__main__":
    main()
