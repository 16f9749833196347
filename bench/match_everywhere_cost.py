"""CPU (process time, s) that checking every captured turn against the
``--match`` rules would add to an import (session 21, lane fgt21, tester
finding W5): on the turns of STORE (an import of the bench corpus), the
shared matching path of capture (``core.text.normalized_map``, then
``tombstones.find_matches`` over every position, as ``redact_matches``
does for the sessions a forget touched, and over word starts only, as an
agent's write is checked), with RULES match texts of distinct lengths::

    python bench/match_everywhere_cost.py STORE [--rules 20] [--every 10]

``--every K`` measures every K-th turn and scales the sums by K (the whole
corpus at 20 rules takes minutes).  Compare with the import's CPU
(``/usr/bin/time mem import claude-code /tmp/bench-corpus``)."""

from __future__ import annotations

import argparse
import time

from objstore.core.objects import value_digest
from objstore.core.text import normalized_map
from objstore.memory.opening import open_store
from objstore.memory.sessions import session_turns
from objstore.memory.tombstones import find_matches


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("--rules", type=int, default=20)
    ap.add_argument("--every", type=int, default=10)
    a = ap.parse_args()
    s = open_store(a.store)
    texts = []
    for name, _oid in s.refs.iter("sessions"):
        texts += [tv.turn.text for tv in session_turns(s, name.split("/", 1)[1])]
    sample = texts[::a.every]
    words = [f"codename-{i:0{i}d}" for i in range(1, a.rules + 1)]
    rules = [(value_digest(w), len(w)) for w in words]
    print(f"{len(texts)} turns, {sum(map(len, texts))} characters; measured every {a.every}th "
          f"({len(sample)} turns), {len(rules)} rules of distinct lengths; CPU s scaled to all turns:")
    t = time.process_time()
    norms = [normalized_map(x)[0] for x in sample]
    print(f"  normalized_map            {(time.process_time() - t) * a.every:8.2f}")
    for label, ws in (("word starts", True), ("every position", False)):
        t = time.process_time()
        hits = sum(bool(find_matches(n, rules, word_starts=ws)) for n in norms)
        print(f"  find_matches {label:14} {(time.process_time() - t) * a.every:8.2f}  ({hits} hits)")


if __name__ == "__main__":
    main()
