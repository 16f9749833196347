"""An ASCII text is tokenized by tantivy's ``simple`` tokenizer, which cuts
it where the ``mem_words`` regex does (its classes on ASCII are letters and
digits) at about half the CPU (session 24, lat24): ``tokenize`` and
``index_terms`` give what the regex analyzers give, and a process that
analyses only ASCII text never compiles the regex."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from objstore.index.analysis import _ANALYZER_LOCK, _STEMS, _analyzer, index_terms, nfc, stem_tokens, tokenize

REPO = Path(__file__).resolve().parents[2]

TEXTS = ["Running databases_migrated at 09:30 (re-index auth.py) x" + "a" * 70 + " ok",
         "tabs\tand\nnewlines\r\x00nul \x7f del __init__ snake_case CamelCase 3.14e10 0xFF",
         "colour \x1b[31mred\x1b[0m text, escapes removed first",
         "".join(chr(c) for c in range(128)), "a" * 63 + " " + "b" * 64 + " " + "c" * 65, "", "   ", "!!!",
         "The flaky test_orders failure came from local time versus UTC; time-machine fixed it."]


def test_ascii_tokens_are_the_regex_analyzers_tokens():
    for text in TEXTS:
        with _ANALYZER_LOCK:
            words = list(_analyzer(False).analyze(nfc(text))) if text else []
            stems = list(_analyzer(True).analyze(nfc(text))) if text else []
        assert tokenize(text) == words, text
        assert index_terms(text) == stems, text
        assert index_terms(text, "words") == words
    assert tokenize("Café re-index") == ["cafe", "re", "index"]   # non-ASCII: the regex, as before
    assert index_terms("Running databases") == ["run", "databas"]


def test_stems_of_ascii_tokens_are_the_regex_analyzers_stems():
    toks = tuple(dict.fromkeys(t for text in TEXTS for t in tokenize(text))) + ("café", "naïve", "日")
    for batch in (toks, toks[:1], toks[5:6]):   # one call for many, and one token alone
        _STEMS.clear()
        with _ANALYZER_LOCK:
            want = tuple((_analyzer(True).analyze(t) or [t])[0] for t in batch)
        assert stem_tokens(batch) == want


def test_a_process_analysing_ascii_text_compiles_no_regex():
    code = ("from objstore.index import analysis as A\n"
            "A.tokenize('Running the database migration'); A.index_terms('Running databases, 42 of them')\n"
            "A.stem_tokens(('running', 'databases')); A.stem_tokens(('migrations',))\n"
            "print(sorted(A._ANALYZERS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.strip() == "['simple', 'simple_stem']"
