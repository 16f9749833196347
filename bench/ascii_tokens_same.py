#!/usr/bin/env python3
"""Whether ``tokenize`` and ``index_terms`` of every ASCII turn text of a
store give what the ``mem_words`` / ``mem_stem`` regex analyzers give, and
the CPU of each way (session 24, lat24: an ASCII text is cut by tantivy's
``simple`` tokenizer, which cuts it at the same places at about half the CPU;
docs/benchmarks.md, "Session 24 (branch `lat24`)").

    python bench/ascii_tokens_same.py STORE

Reads every turn of STORE (read only); prints the turns, the ASCII ones
(after ``nfc``), how many differ, and the CPU of the regex analyzers against
the two functions over those texts.  Exits 1 when any differ.
"""

from __future__ import annotations

import sys
import time

from objstore.core.objects import Turn
from objstore.index import analysis as A
from objstore.memory.opening import open_store


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    st = open_store(args[0])
    n = ascii_n = differ = 0
    regex = fast = 0.0
    for oid in st.iter_ids():
        try:
            text = st.get(oid, Turn).text
        except Exception:  # noqa: BLE001 - not a turn
            continue
        n += 1
        norm = A.nfc(text)
        if not norm.isascii():
            continue
        ascii_n += 1
        t0 = time.process_time()
        with A._ANALYZER_LOCK:
            words, stems = list(A._analyzer(False).analyze(norm)), list(A._analyzer(True).analyze(norm))
        t1 = time.process_time()
        got = (A.tokenize(text), A.index_terms(text))
        t2 = time.process_time()
        regex, fast = regex + t1 - t0, fast + t2 - t1
        differ += got != (words, stems)
    print(f"{n} turns, {ascii_n} ASCII, {differ} differ; CPU: regex analyzers {regex:.2f} s, "
          f"tokenize + index_terms {fast:.2f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
