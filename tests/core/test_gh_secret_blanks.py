"""mend22: ``gh secret set NAME -b VALUE`` with more than one blank (or a
tab) between ``secret`` and ``set`` kept its value: the cli21 rule
(``objstore.core.redact.commandline``) matched ``secret[ ]set`` and was
gated on the phrase ``secret set``.  Now blanks there as between ``gh`` and
``secret`` (1-4 spaces or tabs), with either prefilter (the stdlib one and
the optional ``ahocorasick_rs`` matcher); look-alikes are kept."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import prefilter, redact
from tests.core.test_redact import _prefilter   # the stdlib prefilter, or the optional one-pass matcher

SECRET = "GhBlank9SecQ"


@pytest.mark.parametrize("kind", ["stdlib", "fast"])
@pytest.mark.parametrize("blanks", ["  ", "\t", " \t", "    ", "\t\t"])
def test_gh_secret_set_with_blanks_between_the_words_is_redacted(monkeypatch, kind, blanks):
    _prefilter(monkeypatch, kind)
    for text in (f"gh  secret{blanks}set API_KEY -b {SECRET} --repo o/r",
                 f"gh secret{blanks}set API_KEY --body {SECRET}"):
        out = redact(text).text
        assert SECRET not in out and out.startswith(text[:text.index("API_KEY") + 7]), out
        if "\t" not in blanks:   # a tool call's JSON (a tab there is written \\t: not a blank, as after gh)
            esc = redact(json.dumps({"command": text})).text
            assert SECRET not in esc, esc
    assert bool(prefilter._FAST[0]) == (kind == "fast")


@pytest.mark.parametrize("kind", ["stdlib", "fast"])
@pytest.mark.parametrize("text", ["the secret  setting: -b GhBlank9SecQ", "gh secret  list -b GhBlank9SecQ",
                                  "gh variable  set FOO --body plainvalue", "gh secret  set FOO < secret.txt"])
def test_look_alikes_are_kept(monkeypatch, kind, text):
    _prefilter(monkeypatch, kind)
    assert redact(text).text == text
