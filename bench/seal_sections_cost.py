"""CPU time of the seal-rules check of one text with the store's own rules
alone and with one further section under another key (session 42, vlt42:
``seal-rules`` sections, the rules an import's forget guard kept; test41
T23).  Each section is one more pass of ``find_matches`` under its key.

    PYTHONPATH=. python bench/seal_sections_cost.py [TEXT_FILE]

TEXT_FILE: its first 20,000 characters (default: the first transcript of
/work/shared/data/transcripts over 100 kB).  20 rules per section."""

from __future__ import annotations

import os
import pathlib
import sys
import time

from objstore.core.objects import normalize_value
from objstore.memory.sealrulefile import SealRules, rule_digest
from objstore.memory.sealrules import withhold_sealed_values


def _section(n: int) -> SealRules:
    k = os.urandom(32)
    vals = [normalize_value(f"secret-value-{i}-zz") for i in range(n)]
    return SealRules(k, [(f"forgotten:k{i}", rule_digest(k, v), len(v)) for i, v in enumerate(vals)])


def main() -> None:
    src = sys.argv[1] if len(sys.argv) > 1 else next(
        str(p) for p in sorted(pathlib.Path("/work/shared/data/transcripts").rglob("*.jsonl"))
        if p.stat().st_size > 100_000)
    text = open(src, errors="replace").read()[:20000]
    one = _section(20)
    for name, rules in (("1 section", one), ("2 sections", SealRules(one.key, one.lines, [_section(20)]))):
        t = time.process_time()
        for _ in range(50):
            withhold_sealed_values(text, rules)
        print(f"{name}: {(time.process_time() - t) / 50 * 1000:.2f} ms CPU per text of {len(text):,} characters")


if __name__ == "__main__":
    main()
