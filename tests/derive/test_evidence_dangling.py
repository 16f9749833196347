"""Derive's polarity check across a sentence's clauses (session 24 left open:
"We do not, however, use X" escaped it, its negation cut off from its verb by
the commas)."""

from __future__ import annotations

import pytest

from objstore.derive.evidence import contradicted


@pytest.mark.parametrize("cited", [
    "We do not, however, use redis for caching.",
    "The service does not, as far as I know, use redis for caching",
    "The service doesn't, for caching, use redis",
])
def test_a_dangling_negation_reaches_the_verb_after_the_commas(cited):
    assert contradicted("The service uses redis for caching", [cited])


@pytest.mark.parametrize("cited", [
    "No, the service uses redis for caching.",                  # the answer opens with a bare "no"
    "Oh no, the service uses redis for caching again",          # an interjection
    "It is not, but the service uses redis for caching.",        # "but" turns the sentence
    "We do not. The service uses redis for caching.",            # a new sentence
    "Postgres is not used; the service uses redis for caching",  # a new sentence at the semicolon
])
def test_a_negation_does_not_reach_past_an_answer_a_turn_or_a_sentence(cited):
    assert contradicted("The service uses redis for caching", [cited]) == ""


def test_the_faithful_negative_is_still_evidenced():
    assert contradicted("The service does not use redis for caching",
                        ["We do not, however, use redis for caching."]) == ""
