"""Benchmark of objstore.core.redact: 10 MB of mixed text, pathological 256 KB
lines, and the p50 of a typical 2 KB prompt.

    python bench/bench_redact.py
    python bench/bench_redact.py --per-rule   # each rule alone on every pathological line of
                                              # tests/core/test_redact.py: its worst, in CPU time
    python bench/bench_redact.py --prompt     # the 2 KB prompt's p50 alone, as a hook's process sees it
    python bench/bench_redact.py --texts T.pkl  # CPU over a pickled list of str (e.g. every turn text
                                              # of an import corpus), best of 3, with a digest of the output
    python bench/bench_redact.py --mem-prose  # 1.2 MB of prose dense with 'memory', 'memvcs', 'mem recall'
                                              # (no mem command that carries a value), line by line, best of 5
    ... --stdlib                              # any of these with the stdlib prefilter only (no
                                              # ahocorasick_rs, as without the memvcs[fast] extra)
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
    """CPU seconds (process_time): the machine is shared, wall time stretches with its load."""
    t = time.process_time()
    fn(*a)
    return time.process_time() - t


_WORDS = ["def", "return", "token", "password", "the", "config", "value", "user", "export", "curl", "-H",
          "Authorization:", "import", "os", "path", "secret", "key", "=", "(", ")", "http://example.com/a"]


def main() -> None:
    rnd = random.Random(7)
    text = " ".join(rnd.choice(_WORDS) for _ in range(1_600_000))[:10_000_000]
    print(f"10 MB mixed text, one call: {_timed(redact, text):.2f} s CPU")
    patho = {"a": "a" * 262_144, "=": "=" * 262_144, "eyJ": "eyJ" + "A" * 262_141, "x:": "x:" * 131_072,
             "token: ": "token: " * 37_449, "base64": "".join(rnd.choice(string.ascii_letters + "+/") for _ in range(262_144))}
    worst = max((min(_timed(redact, t) for _ in range(3)), n) for n, t in patho.items())
    print(f"worst pathological 256 KB line: {worst[0] * 1000:.1f} ms CPU ({worst[1]!r})")
    prompt_p50(rnd)


def prompt_p50(rnd: random.Random | None = None) -> None:
    """The p50 (and min) of 300 means of 20 calls on the 2 KB prompt; alone (``--prompt``, the
    stdlib prefilter: no 1 MiB scanned before) it is the figure a hook sees."""
    rnd = rnd or random.Random(7)     # alone: another prompt of the same words
    prompt = " ".join(rnd.choice(_WORDS) for _ in range(400))[:2000]
    runs = [_timed(lambda: [redact(prompt) for _ in range(20)]) / 20 for _ in range(300)]
    print(f"2 KB prompt p50 (of 300 means of 20 calls): {statistics.median(runs) * 1e6:.0f} µs CPU, "
          f"min {min(runs) * 1e6:.0f} µs")


def per_rule() -> None:
    """Each rule alone (``RULES`` replaced by that one rule) on every pathological 256 KB line of
    tests/core/test_redact.py; prints its worst line and the CPU time (best of 2) it took there."""
    from objstore.core import redact as rm
    from tests.core.test_redact import PATHOLOGICAL
    rm = getattr(rm, "engine", rm)   # where redact() reads RULES (objstore.core.redact.engine since session 18)
    rules = list(rm.RULES)
    try:
        for i, rule in enumerate(rules):
            rm.RULES = [rule]
            worst = (0.0, "")
            for name, text in PATHOLOGICAL.items():
                best = min(_cpu(rm.redact, text) for _ in range(2))
                worst = max(worst, (best, name))
            print(f"{i:2d} {rule.name:24s} {worst[0] * 1000:7.1f} ms  {worst[1]!r:24s} {rule.source[:60]}")
    finally:
        rm.RULES = rules
    # and all rules together, in CPU time: the 10 MB mix of the tests, the shared transcripts line by line
    import glob
    import inspect
    from tests.core.test_redact import _mixed_10mb
    text, _ = _mixed_10mb()
    print(f"10 MB mixed (tests' mix), one call: {min(_cpu(rm.redact, text) for _ in range(3)):.2f} s CPU")
    root = Path(__file__).resolve().parents[2] / "shared" / "data" / "transcripts"
    lines = [ln for f in sorted(glob.glob(str(root / "**" / "*.jsonl"), recursive=True))
             for ln in Path(f).read_text(encoding="utf-8", errors="replace").splitlines()]
    if lines:
        cost = min(_cpu(lambda: [rm.redact(ln) for ln in lines]) for _ in range(3))
        print(f"shared transcripts, {len(lines)} lines, {sum(map(len, lines)) / 1e6:.1f} MB: {cost:.2f} s CPU")
    src = inspect.getsource(__import__("textwrap"))
    prompt = ("Please refactor the config loader so that it reads the token from the keyring instead of the "
              ".env file; the password prompt should use getpass. Here is the current code:\n\n" + src)[:1900]
    for _ in range(200):
        rm.redact(prompt)
    print(f"2 KB prompt (the tests' prompt), mean: {_cpu(lambda: [rm.redact(prompt) for _ in range(5000)]) / 5000 * 1e6:.0f} us CPU")


def mem_prose() -> None:
    """CPU (best of 5) of redact over 1.2 MB of prose lines dense with words that start with 'mem'
    ('memory', 'member', 'memvcs', 'mem recall'), one call per line as a capture does: the cost of
    the gates of mem's command rule (red20, red21) where no such command is."""
    from objstore.core import redact as rm
    line = ("the memory footprint of memvcs grew; a member asked why mem recall was slow, and the "
            "memo says memoization of the memtable helps (memory: 3.1 GB)")
    lines = [f"{i}: {line}" for i in range(1_200_000 // (len(line) + 8))]
    best = min(_cpu(lambda: [rm.redact(t) for t in lines]) for _ in range(5))
    kind = "ahocorasick_rs" if rm.prefilter._FAST[0] else "stdlib"
    print(f"mem-dense prose, {len(lines)} lines, {sum(map(len, lines)) / 1e6:.2f} MB: {best * 1000:.0f} ms CPU "
          f"(prefilter: {kind})")


def _cpu(fn, *a) -> float:
    t = time.process_time()
    fn(*a)
    return time.process_time() - t


def texts(path: str) -> None:
    """CPU time (best of 3) of redact over every text of a pickled list, and a digest of the outputs
    (compare it between two checkouts: the same digest, the same output)."""
    import hashlib
    import pickle
    from objstore.core import redact as rm
    with open(path, "rb") as f:
        items = pickle.load(f)
    for t in items[:2000]:
        rm.redact(t)
    best = min(_cpu(lambda: [rm.redact(t) for t in items]) for _ in range(3))
    h = hashlib.blake2b(digest_size=8)
    counts: dict[str, int] = {}
    for t in items:
        r = rm.redact(t)
        h.update(repr((r.text, r.hits)).encode("utf-8", "surrogatepass"))
        for hit in r.hits:
            counts[hit.rule] = counts.get(hit.rule, 0) + 1
    kind = "ahocorasick_rs" if rm.prefilter._FAST[0] else "stdlib"
    print(f"{len(items)} texts, {sum(map(len, items)) / 1e6:.1f} M chars: {best:.3f} s CPU (prefilter: {kind}), "
          f"output digest {h.hexdigest()}; {sum(counts.values())} redactions {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--stdlib" in args:
        from objstore.core.redact import prefilter
        prefilter._FAST[0] = False
    if "--texts" in args:
        texts(args[args.index("--texts") + 1])
    elif "--mem-prose" in args:
        mem_prose()
    elif "--prompt" in args:
        prompt_p50()
    else:
        per_rule() if "--per-rule" in args else main()
