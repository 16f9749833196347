#!/usr/bin/env python3
"""The seal-rule check of one captured turn (``sealrules.withhold_sealed_values`` with the store's rules, as
the turn writer runs it on every turn of a store with a sealed key), on a ~2 KB English prompt and a ~2 KB
Chinese prompt with Latin words glued in, against 12 rules (6 values and their folded forms) of which none
matches; session 39 (branch ``cjk39``: a character of a script written without spaces is a word of its own)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python bench/seal_check_turn.py TREE {ascii,cjk} {0,200}

The difference between 200 calls and 0 (start-up and set-up only), over 200, is one turn's check in
instructions; the line printed is a digest of the answers (equal digests: the same answers on both trees).
"""

from __future__ import annotations

import hashlib
import os
import sys

ASCII = ("we moved the staging database to the new cluster last week and the migration scripts need the "
         "updated connection string; can you check whether deploy.yml still points at pg-old-7 and fix the "
         "retry loop in worker/queue.py so it backs off after three failures? ") * 8
CJK = ("我们上周把测试数据库迁到了新的集群，迁移脚本需要新的连接字符串；请检查deploy.yml是否还指向pg-old-7，"
       "并修复worker/queue.py里的重试循环，让它在三次失败后退避。パスワードは変更済みです。") * 12
VALUES = ["maple-otter-77", "zebra lantern 7781", "cobalt-heron-7781", "红色大象九号", "4410-9921-5520", "rowan 8841"]


def main() -> None:
    tree, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.path.insert(0, os.path.abspath(tree))
    from objstore.core.objects import normalize_value
    from objstore.core.textwindows import folded_form
    from objstore.memory.sealrulefile import SealRules, rule_digest
    from objstore.memory.sealrules import withhold_sealed_values
    key = bytes(range(32))
    forms = {f for v in VALUES for f in (normalize_value(v), folded_form(normalize_value(v)))}
    rules = SealRules(key, sorted(("user/k", rule_digest(key, f), len(f)) for f in forms))
    text = ASCII if kind == "ascii" else CJK
    out = [withhold_sealed_values(text, rules) for _ in range(n)]
    print(f"{kind} {len(text)} chars, {n} calls, digest {hashlib.sha256(repr(out[:1]).encode()).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
