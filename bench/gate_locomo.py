#!/usr/bin/env python3
"""LoCoMo questions whose gold rank moves with recall's content gate
(``objstore.retrieval.relevance``): one store, each question recalled with
``RecallOptions(gate=False)`` and ``gate=True`` in the same process; prints
``rank off -> rank on  question  content words`` for each question that
moved (None: not in the top 10), and the counts (docs/benchmarks.md,
"Session 28 (branch `rec28`)").  Only questions with content words to gate
on are recalled twice; the others cannot move.

    python bench/gate_locomo.py [/work/shared/data/locomo/locomo10.json]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.memory.opening import open_store  # noqa: E402
from objstore.retrieval.evaluate import _locomo_sessions, _locomo_samples, load_json, locomo_gold, write_sessions  # noqa: E402
from objstore.retrieval.recall import RecallOptions, recall  # noqa: E402
from objstore.retrieval.relevance import content_words  # noqa: E402


def _rank(ranked: list[str], gold: set[str]) -> int | None:
    return next((i + 1 for i, r in enumerate(ranked[:10]) if r in gold), None)


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/locomo/locomo10.json"
    samples = _locomo_samples(load_json(path))
    with tempfile.TemporaryDirectory(prefix="gate-locomo.") as work:
        st = open_store(Path(work) / "s", create=True, analyzer="stem")
        try:
            for s in samples:
                write_sessions(st, _locomo_sessions(s, True, True))
            counts = {"gated": 0, "worse": 0, "better": 0, "lost10": 0, "won10": 0}
            for s in samples:
                project = str(s.get("sample_id") or "conv")
                for qa, gold in locomo_gold(s):
                    q = qa["question"]
                    if not content_words(q):
                        continue
                    counts["gated"] += 1
                    r = {g: _rank([h.source or "" for h in recall(
                        st, [q], what="turns", projects=(project,), limit=10,
                        opts=RecallOptions(gate=g).replace(snippet=40)).hits], gold) for g in (False, True)}
                    if r[False] == r[True]:
                        continue
                    print(f"{r[False]} -> {r[True]}  {q!r}  {sorted(sorted(x) for x in content_words(q))}")
                    counts["worse" if (r[True] or 99) > (r[False] or 99) else "better"] += 1
                    counts["lost10"] += r[True] is None
                    counts["won10"] += r[False] is None
            print(" ".join(f"{k} {v}" for k, v in counts.items()))
        finally:
            st.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
