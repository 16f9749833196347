"""``tombstones.match_spans`` of one tree against another's over every turn text (imp43, txt42b's idea):
each text of a ``bench/turn_texts.py`` pickle (plus the distinct cwds of the corpus's records) is matched
with no rule, one rule, and a few rules made from phrases that occur in the texts (so windows with hits are
compared too), from word starts (capture's ``served_spans``) and from any position (``redact_matches``).
Prints, per rule set and mode, the texts with a hit, the spans, a digest of every text's spans, and the
CPU of the pass::

    PYTHONPATH=<tree> python bench/match_spans_same.py TEXTS.pkl [--every K] [--any-every K]

Equal digests from two trees: the same spans for every text."""

from __future__ import annotations

import argparse
import hashlib
import pickle
import time

from objstore.core.text import normalize_value
from objstore.memory.tombstones import match_forms, match_spans

#: --match texts: one that occurs nowhere, and phrases that occur (words, hyphenated values, a path, a
#: Chinese phrase) so some texts hold windows
ABSENT = ["Zephyrine Quillborough"]
FEW = ["Zephyrine Quillborough", "database migration", "retry loop", "node_modules", "src/index",
       "error: cannot", "import json", "测试用例", "TODO fix", "the user"]


def rules_of(texts: list[str]) -> list[tuple[bytes, int]]:
    out = []
    for t in texts:
        for f in match_forms(normalize_value(t)):
            out.append((hashlib.sha256(f.encode("utf-8")).digest(), len(f)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("texts")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--any-every", type=int, default=5, help="any position: every K-th of those texts only")
    a = ap.parse_args()
    with open(a.texts, "rb") as f:
        texts = pickle.load(f)[::a.every]
    for name, rules in (("none", []), ("one", rules_of(ABSENT)), ("few", rules_of(FEW))):
        for ws in (True, False):
            h = hashlib.sha256()
            hit = spans = 0
            t0 = time.process_time()
            for t in texts if ws else texts[::a.any_every]:
                got = match_spans(t, rules, word_starts=ws)
                h.update(repr(got).encode() + b"\n")
                hit += bool(got)
                spans += len(got)
            cpu = time.process_time() - t0
            print(f"{name:4} rules={len(rules):2} word_starts={ws!s:5} texts={len(texts) if ws else len(texts[::a.any_every])} hit={hit} spans={spans} "
                  f"digest={h.hexdigest()[:16]} cpu={cpu:.2f}s", flush=True)


if __name__ == "__main__":
    main()
