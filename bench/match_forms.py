"""CPU of ``core.text.reads_differently`` (the gate of the index's second plain form, test16 F14)
against ``confusable_fold`` over the non-ASCII lines of the bench corpus, medians of 9::

    PYTHONPATH=<tree> python bench/match_forms.py
"""

import os, time
from objstore.core.text import confusable_fold, reads_differently
lines = [l for d, _, fs in os.walk("/tmp/bench-corpus") for f in fs
         for l in open(os.path.join(d, f), encoding="utf-8", errors="replace") if not l.isascii()]
for name, fn in (("reads_differently", reads_differently), ("confusable_fold", confusable_fold)):
    runs = []
    for _ in range(9):
        t = time.process_time(); [fn(l) for l in lines]; runs.append(time.process_time() - t)
    print(name, len(lines), "lines", round(sorted(runs)[4], 3), "s CPU (median of 9)")
print("differ:", sum(reads_differently(l) for l in lines), "gated;", sum(confusable_fold(l) != l for l in lines), "whose form differs")
