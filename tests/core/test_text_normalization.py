"""One normalization for matching (NFC + casefold, whitespace runs as one
space), in objstore.core.text, used by forget, tombstones, the scrubbing of
the agents' transcripts and the store alike."""

from __future__ import annotations

import json
import unicodedata

import pytest

from objstore.capture import scrub
from objstore.core import text
from objstore.core.objects import normalize_value

DECOMPOSED_CAFE = unicodedata.normalize("NFD", "café")  # "cafe" + U+0301


def test_normalize_value_is_nfc_casefold_and_whitespace():
    assert text.normalize_value("  Hello\n\t World ") == "hello world"
    assert text.normalize_value("Straße") == text.normalize_value("STRASSE") == "strasse"
    assert text.normalize_value(DECOMPOSED_CAFE) == text.normalize_value("CAFÉ") == "café"
    assert normalize_value is text.normalize_value  # one function, re-exported by objects


@pytest.mark.parametrize("haystack,needle,found", [
    ("the Straße is long", "STRASSE", True),
    ("a " + DECOMPOSED_CAFE + " au lait", "café", True),
    ("a café au lait", DECOMPOSED_CAFE.upper(), True),
    ("one\n  two", "ONE TWO", True),
    ("strange", "strasse", False),
    ("anything", "   ", False),
])
def test_contains(haystack, needle, found):
    assert text.contains(haystack, needle) is found
    assert text.matcher(needle)(haystack) is found


def test_find_spans_maps_back_to_the_original_text():
    s = "Go down the Straße, then the STRASSE again"
    spans = text.find_spans(s, "strasse")
    assert [s[a:b] for a, b in spans] == ["Straße", "STRASSE"]
    d = "x " + DECOMPOSED_CAFE + "  AU\nlait y"
    spans = text.find_spans(d, "CAFÉ au lait")
    assert [d[a:b] for a, b in spans] == [DECOMPOSED_CAFE + "  AU\nlait"]
    assert text.replace_matches(d, "café au lait", "[R]") == ("x [R] y", 1)
    # a fold that changes length ("ß" -> "ss") widens a partial match to the whole character
    assert text.replace_matches("aßb", "sb", "[R]") == ("a[R]", 1)
    assert text.replace_matches("nothing here", "café", "[R]") == ("nothing here", 0)


def _jsonl(tmp_path, *contents):
    p = tmp_path / "t.jsonl"
    lines = [json.dumps({"type": "user", "message": {"role": "user", "content": c}}) for c in contents]
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize("planted,match", [
    ("Straße", "STRASSE"),
    (DECOMPOSED_CAFE + " noir", "café noir"),
    ("café noir", DECOMPOSED_CAFE.upper() + " NOIR"),
    ("line one\nline two", "one line two"),
])
def test_scrub_sources_matches_as_the_store_does(tmp_path, planted, match):
    p = _jsonl(tmp_path, "keep this", f"meet me at {planted} at noon")
    assert [h.lines for h in scrub.find([str(p)], match)] == [1]
    assert scrub.scrub(p, match) == 1
    lines = [json.loads(ln)["message"]["content"] for ln in p.read_text().splitlines()]
    assert lines[0] == "keep this"
    assert scrub.REDACTED in lines[1]
    assert text.normalize_value(match) not in text.normalize_value(lines[1])
    assert scrub.find([str(p)], match) == []
