"""The word checks in front of two patterns a new process would otherwise
compile for every prompt or question (start-up, docs/benchmarks.md,
"Session 11"): ``measure_pattern``'s question patterns and the "remember
that …" cue of ``statement_of``.  The check only skips texts no pattern
matches: the answers are those of the patterns run on every text."""

from __future__ import annotations

import random

from objstore.capture import statements
from objstore.capture.statements import statement_of
from objstore.retrieval import querywords
from objstore.retrieval.querywords import measure_pattern

QUESTIONS = ["how large can an uploaded file be", "HOW LONG do cache entries live", "How many workers run",
             "which port does the api use", "what is the size of the pool", "Number of retries?",
             "the DURATION of a lease", "why does the ledgerly migration fail", "tuzadez bibotak",
             "how often do we deploy", "hOw MuCh MeMoRy does it take", "showing how it sizes",
             "ſize of the cache", "wie groß ist die Datei", "how\u00a0many pods"]
PROMPTS = ["remember that the db is on 5432", "ok. Don't forget that CI needs Postgres 16!", "NOTE THAT x is y",
           "please Keep in mind that staging is slow", "\u212aeep in mind that the key is rotated monthly",
           "remember: the api port is 8443", "why does the migration fail?", "fix the flaky auth test",
           "denote that", "remembering things", "Merci de noter que le port est 8443", "kept in mind"]


def _shuffled(texts: list[str], n: int) -> list[str]:
    rng = random.Random(11)
    out = list(texts)
    for _ in range(n):
        words = rng.choice(texts).split() + rng.choice(texts).split()
        rng.shuffle(words)
        text = " ".join(words)
        out.append("".join(c.upper() if rng.random() < 0.3 else c for c in text))
    return out


def test_measure_pattern_answers_as_its_patterns(monkeypatch):
    texts = _shuffled(QUESTIONS, 400)
    got = [measure_pattern(q) for q in texts]
    monkeypatch.setattr(querywords, "_MEASURE_ANCHORS", ("",))   # "" is in every text: the patterns always run
    assert got == [measure_pattern(q) for q in texts]
    assert sum(g is not None for g in got) > 50
    monkeypatch.undo()
    assert measure_pattern("how large can an uploaded file be").search("up to 25 MB")
    assert measure_pattern("ſize of the cache") is not None   # re.I folds the long s onto s
    assert measure_pattern("which port does the api use") is None


def test_statement_of_answers_as_its_cue(monkeypatch):
    texts = _shuffled(PROMPTS, 400)
    got = [statement_of(p) for p in texts]
    monkeypatch.setattr(statements, "CUE_WORDS", ("",))
    assert got == [statement_of(p) for p in texts]
    assert sum(g is not None for g in got) >= 6   # the cue prompts at least
    monkeypatch.undo()
    assert statement_of("\u212aeep in mind that the key is rotated monthly") == "the key is rotated monthly"   # the Kelvin sign; "keep in mind that" takes a bare statement only (test33 T11)
    assert statement_of("fix the flaky auth test") is None
