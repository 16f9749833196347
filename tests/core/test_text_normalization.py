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


# --- re-attack defect 11: words wrapped in terminal colour codes --------------------------------

def test_escape_sequences_are_not_part_of_the_text():
    from objstore.core.text import contains, find_spans, normalize_value, replace_matches, strip_escapes
    t = "run \x1b[1mOpusPlan\x1b[22m, see \x1b]8;;https://x.test\x07the docs\x1b]8;;\x07 \x1b[38;5;208mnow\x1b[0m"
    assert strip_escapes(t) == "run OpusPlan, see the docs now"
    assert normalize_value(t) == "run opusplan, see the docs now"
    assert contains(t, "opusplan") and contains(t, "the docs now") and not contains(t, "1mopusplan")
    out, n = replace_matches(t, "opusplan", "[x]")
    assert n == 1 and out == t.replace("OpusPlan", "[x]")          # the codes around it are kept
    assert find_spans("plain text", "text") == [(6, 10)]


def test_search_recall_and_forget_agree_on_words_in_colour_codes(tmp_path, invoke):
    from tests.hooks._util import asst, line, text, user
    invoke("remember", "user/model", "use \x1b[1mquokkaplan\x1b[22m for planning")
    t = tmp_path / "S-esc.jsonl"
    t.write_bytes(line(user("u1", "what did the build print?", sid="S-esc"))
                  + line(asst("a1", "m1", [text("it printed \x1b[31mwombatfail\x1b[0m twice")], sid="S-esc")))
    invoke("import", "claude-code", str(t))
    for word in ("quokkaplan", "wombatfail"):
        assert word in invoke("search", word, "--json").stdout, word
        assert invoke("recall", word, "--all-projects", "--json").json["hits"], word
    assert not invoke("search", "1mquokkaplan", "--json").json
    invoke("forget", "--match", "wombatfail", "--yes")
    assert not invoke("search", "wombatfail", "--json").json


def test_confusable_fold_drops_exactly_the_default_ignorables_then_nfkc():
    """Every code point (surrogates aside) in one text: the ignorable ones
    (``text._IGNORABLE_RANGES``) are dropped, every other one is kept and
    the result is NFKC with the dashes NFKC keeps read as ``-`` (test36 T2);
    each ignorable alone between two letters vanishes."""
    from objstore.core.text import _DASHES, _IGNORABLE_RANGES, confusable_fold
    ignorable = {c for a, b in _IGNORABLE_RANGES for c in range(a, b + 1)}
    everything = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    kept = "".join(chr(c) for c in everything if c not in ignorable)
    assert confusable_fold("".join(map(chr, everything))) == unicodedata.normalize("NFKC", kept).translate(_DASHES)
    assert all(confusable_fold(f"\u00e9{chr(c)}x") == "\u00e9x" for c in ignorable)
    assert confusable_fold("Wal\u200brus \uff37\u00e9") == "Walrus W\u00e9"
    assert confusable_fold("lone \ud800 surrogate\u00ad") == "lone \ud800 surrogate"


def test_a_needle_is_found_in_a_json_string_and_replaced_escapes_whole():
    """test27 V29: a tool call's input is kept as its JSON text; the text as
    the person copies it (a quote, a line break, a backslash) matches there,
    and a replacement covers whole escapes, so the JSON still parses."""
    import json
    from objstore.core.jsonspan import json_unescaped
    from objstore.core.text import find_spans, matcher, replace_matches
    raw = json.dumps({"command": 'echo "Initech closes" && cat C:\\tmp\\x', "content": "planned:\nteam Osprey"},
                     ensure_ascii=False)
    for needle in ('echo "initech closes"', "C:\\tmp\\x", "planned:\nteam Osprey", "planned: team osprey"):
        assert matcher(needle)(raw), needle
        out, n = replace_matches(raw, needle, "[X]")
        assert n == 1 and "[X]" in json.dumps(json.loads(out)), (needle, out)
    assert not matcher('echo "initech opens"')(raw)
    assert find_spans('a \\q "b"', 'a \\q "b"') == [(0, 8)]        # a lone backslash stays as it is
    assert json_unescaped('x\\u00e9\\"') == ('xé"', [0, 1, 7], [1, 7, 9])
