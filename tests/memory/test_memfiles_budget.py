"""The memory files, standing and pinned facts all reach a session, within
the hook's 9,900-character ceiling, and what did not fit is counted in the
block (test32 X13: files within their limits crowded out user.md, the
project's files and every pinned and standing fact, without a word)."""

from __future__ import annotations

import re

LIMITS = (("soul", 4000), ("memory", 2200), ("user", 1375))


def _entries(name, who, limit):
    return [(f"{name} {who} entry {i} " + "w" * limit)[: limit // 2 - 2] for i in range(2)]


def _fill(invoke, projects=(None,), n_pinned=5):
    for project in projects:
        for name, limit in LIMITS:
            for e in _entries(name, project or "me", limit):   # two entries: the file at its limit
                invoke("memory", "add", name, e, *(["--project", project] if project else []))
    for i in range(n_pinned):
        invoke("remember", f"user/pin{i:02d}", f"pinned value number {i} " + "p" * 150, "--pin")
    invoke("remember", "user/review-style", "review in small commits, standing rule")
    invoke("promote", "user/review-style", "--standing")


def _omitted(text):
    m = re.search(r"^\((\d+) more stored facts? not shown here", text, re.M)
    return int(m.group(1)) if m else None


def test_default_budget_holds_the_full_files_and_the_standing_and_pinned_facts(invoke):
    _fill(invoke)
    out = invoke("context", "--project", "api", "--json").json
    text = out["text"]
    for name, limit in LIMITS:   # every entry of every file, whole
        for e in _entries(name, "me", limit):
            assert e in text
    assert "cut to fit" not in text and _omitted(text) is None
    keys = [f["key"] for f in out["facts"]]
    assert "user/review-style" in keys and all(f"user/pin{i:02d}" in keys for i in range(5))


def test_files_over_the_ceiling_are_each_cut_and_counted_after_the_pinned_facts(invoke):
    _fill(invoke, projects=(None, "api"), n_pinned=40)
    out = invoke("context", "--project", "api", "--json").json
    text = out["text"]
    assert len(text) <= 9_900 and text.endswith("</mem-context>\n")   # the hook's ceiling (MAX_CONTEXT_CHARS)
    for label in ("# soul.md", "# memory.md", "# user.md", "# soul.md (project/api)", "# user.md (project/api)"):
        assert label in text
    for name, _limit in LIMITS:   # every file shows its first entry's start, and says what it cut
        for who in ("me", "api"):
            assert f"{name} {who} entry 0 www" in text
    cuts = re.findall(r"cut to fit the session budget: ([\d,]+) of ([\d,]+) characters shown", text)
    assert len(cuts) == 6 and all(0 < int(a.replace(",", "")) < int(b.replace(",", "")) for a, b in cuts)
    keys = [f["key"] for f in out["facts"]]
    assert "user/review-style" in keys and "user/pin39" in keys   # (newest first)
    shown = sum(k.startswith("user/pin") for k in keys)
    assert _omitted(text) == 40 - shown > 0   # what did not fit is counted in the block, never silent


def test_a_set_budget_keeps_room_for_standing_and_pinned_facts(invoke):
    _fill(invoke, projects=(None, "api"))
    out = invoke("context", "--project", "api", "--budget", "1500", "--json").json
    text = out["text"]
    assert -(-len(text) // 4) <= 1500
    keys = [f["key"] for f in out["facts"]]
    assert "user/review-style" in keys and all(f"user/pin{i:02d}" in keys for i in range(5))
    assert text.index("# user.md (project/api)") < text.index("user/review-style")
