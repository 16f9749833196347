"""The memory files, standing and pinned facts all reach a session at the
default budget, and a set budget too small for them says what it cut
(test32 X13: files within their limits crowded out user.md, the project's
files and every pinned and standing fact, without a word)."""

from __future__ import annotations

import re

LIMITS = (("soul", 4000), ("memory", 2200), ("user", 1375))


def _fill(invoke, n_pinned=40):
    for project in (None, "api"):
        for name, limit in LIMITS:
            for e in _entries(name, project or "me", limit):   # two entries: the file at its limit
                invoke("memory", "add", name, e, *(["--project", project] if project else []))
    for i in range(n_pinned):
        invoke("remember", f"user/pin{i:02d}", f"pinned value number {i} " + "p" * 150, "--pin")
    invoke("remember", "user/review-style", "review in small commits, standing rule")
    invoke("promote", "user/review-style", "--standing")


def _entries(name, who, limit):
    return [(f"{name} {who} entry {i} " + "w" * limit)[: limit // 2 - 2] for i in range(2)]


def _omitted(text):
    m = re.search(r"^\((\d+) more stored facts? not shown here", text, re.M)
    return int(m.group(1)) if m else None


def test_default_budget_holds_full_files_and_the_standing_and_pinned_facts(invoke):
    _fill(invoke)
    out = invoke("context", "--project", "api", "--json").json
    text = out["text"]
    for project in ("me", "api"):
        for name, limit in LIMITS:   # every entry of every file, whole
            for e in _entries(name, project, limit):
                assert e in text
    assert "cut to fit" not in text
    keys = [f["key"] for f in out["facts"]]
    assert "user/review-style" in keys and "user/pin39" in keys   # (newest first)
    shown = sum(k.startswith("user/pin") for k in keys)
    assert _omitted(text) == 40 - shown   # what did not fit is counted in the block, never silent


def test_a_set_budget_keeps_room_for_standing_and_pinned_facts_and_counts_the_cut(invoke):
    _fill(invoke, n_pinned=5)
    out = invoke("context", "--project", "api", "--budget", "1500", "--json").json
    text = out["text"]
    assert -(-len(text) // 4) <= 1500
    keys = [f["key"] for f in out["facts"]]
    assert "user/review-style" in keys and all(f"user/pin{i:02d}" in keys for i in range(5))
    m = re.search(r"cut to fit the session budget: ([\d,]+) of the memory files' ([\d,]+) characters shown", text)
    assert m and 0 < int(m.group(1).replace(",", "")) < int(m.group(2).replace(",", ""))
    assert text.index("# soul.md") < m.start() < text.index("user/review-style")
