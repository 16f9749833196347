"""test36 T2: a forgotten text written back by an agent with a Unicode
dash in place of its hyphen (U+2010 hyphen, U+2011 non-breaking hyphen,
U+2013 en dash, U+2212 minus — what word processors and models emit) read
the same to a person and passed the lower-trust write check, so the value
came back in every session block.  ``core.text.confusable_fold`` now reads
those dashes as ``-``.  Real ``mem`` processes on a real store."""

from __future__ import annotations

import pytest

from objstore.core.text import confusable_fold, find_spans, matcher

DASHES = ["\u2010", "\u2011", "\u2013", "\u2014", "\u2212"]


@pytest.mark.parametrize("kind", ["match", "key"])
def test_an_agent_cannot_write_a_forgotten_text_back_with_a_unicode_dash(tmp_path, mem, kind):
    e = {"MEM_HOME": str(tmp_path / "store")}
    mem("remember", "project/acme/launch", "codename zebra-quartz-9981", env=e)
    if kind == "match":
        mem("forget", "--match", "zebra-quartz-9981", "--yes", env=e)
    else:
        mem("forget", "project/acme/launch", "--yes", env=e)
    mem("gc", "--prune=now", env=e)
    agent = {**e, "MEM_AGENT": "claude"}
    for d in DASHES:
        value = f"codename zebra{d}quartz{d}9981" if kind == "key" else f"the codename is zebra{d}quartz{d}9981"
        mem("remember", "project/acme/launch" if kind == "key" else "project/acme/codename2", value,
            env=agent, exit_code=6)
    ctx = mem("context", "--project", "acme", env=e, exit_code=None).stdout
    assert "quartz" not in ctx
    # an ordinary text with an en dash is written as before
    mem("remember", "project/acme/note", "ports 8000\u20138010 are free", env=agent)


def test_the_dashes_read_as_a_hyphen_and_spans_cover_them():
    assert confusable_fold("a\u2011b\u2212c\u2014d") == "a-b-c-d"
    assert confusable_fold("plain-ascii") == "plain-ascii"
    assert matcher("zebra-quartz")("we named it zebra\u2013quartz today")
    assert not matcher("zebra-quartz")("zebra quartz")     # a space is not a dash
    text = "we named it zebra\u2013quartz today"
    assert [text[a:b] for a, b in find_spans(text, "zebra-quartz")] == ["zebra\u2013quartz"]
