"""The time rules' value patterns (``retrieval.timeline``): a path, a
capitalised name and a lower-case word open with the character they
consume first, their "not after" test a look-behind behind it, so that
``re`` skips to the next candidate character in C instead of trying the
pattern at every position of a passage (session 42, rec42:
docs/benchmarks.md).  Each finds what its look-behind-first spelling
found: the same spans and groups, on real texts and on every string of
the characters the patterns test."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

import pytest

from objstore.retrieval import timeline

#: the spellings before session 42 (look-behind first): the reference
BEFORE = {
    "_PATH_RE": r"(?<![\w.~/:-])~?/[A-Za-z_][\w.-]*(?:/[\w.-]+)+/?",
    "_NAME_RE": r"(?<![\w.])([A-Z][\w+-]*(?:\.[A-Za-z]\w*)*)",
    "_LOWER_RE": r"(?<![\w.])[a-z][\w.+-]*",
}

#: characters each pattern tests: word characters of several scripts, the separators of its look-behinds
ALPHABET = "aZq0٣é_Ω.+-~/: \n\t\""

TEXTS = [
    "", "/", "~", "~/", "/a/b", "~/work/shop", "x/srv/a", "./srv/a", "~~/a/b", ":/a/b", "-/a/b", "http://h/a/b",
    " /srv/shop-new/ and ~/work/shop.", "Fly.io and RabbitMQ", "A", ".Abc", "_Abc", "x.Abc", "é Abc",
    "Priya owns it. Then Node 20 moved to Fly.io", "abc", ".abc", "a.b.c+d-e", "word-Mixed", "ΩAbc Ωabc",
    "/Users/u/app/index.html", "see /etc/nginx/conf.d/ now", "a\n/b/c\n~/d/e",
]


def _corpus_texts() -> list[str]:
    """Up to 400 passages (4,000 characters each at most) of the real
    transcripts, when the data folder is there."""
    out: list[str] = []
    for f in sorted(Path("/work/shared/data/transcripts").glob("**/*.jsonl"))[:20]:
        for line in f.read_text(errors="replace").splitlines():
            try:
                msg = json.loads(line).get("message") or {}
            except (ValueError, AttributeError):
                continue
            content = msg.get("content") if isinstance(msg, dict) else None
            parts = [content] if isinstance(content, str) else \
                [p.get("text") for p in content or () if isinstance(p, dict)]
            out.extend(p[:4000] for p in parts if isinstance(p, str) and p)
            if len(out) >= 400:
                return out
    return out


def _found(rx, text: str) -> tuple:
    return [(m.span(), m.groups()) for m in rx.finditer(text)], rx.findall(text)


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_a_value_pattern_finds_what_its_look_behind_first_spelling_found(name):
    rx, before = getattr(timeline, name), re.compile(BEFORE[name])
    short = ("".join(p) for n in range(5) for p in itertools.product(ALPHABET, repeat=n))
    rnd = random.Random(42)
    longer = ("".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(5, 40))) for _ in range(20000))
    checked = 0
    for text in itertools.chain(TEXTS, _corpus_texts(), short, longer):
        assert _found(rx, text) == _found(before, text), (name, text)
        checked += 1
    assert checked > 100000


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_a_value_pattern_opens_with_the_character_it_consumes(name):
    """What lets ``re`` skip ahead: a pattern that opens with a look-behind
    is tried at every position of the text."""
    assert not getattr(timeline, name).args[0].startswith("(?<"), name


def test_values_and_lower_words_of_a_passage():
    text = ("Priya moved the api to Fly.io on port 8080. Then ~/work/shop and /srv/shop-new/ "
            "held v2; see /Users/u/app/index.html. RabbitMQ stays.")
    assert timeline.values_of(text, lower_words=set()) == {
        "8080": "int", "v2": "code", "~/work/shop": "code", "/srv/shop-new": "code", "priya": "initial",
        "fly.io": "name", "users": "name", "rabbitmq": "name"}   # ("Users" after "/": a capitalised word)
    assert {"moved", "the", "api", "to", "on", "port", "held", "see", "stays."} <= timeline.lower_words_of([text])
