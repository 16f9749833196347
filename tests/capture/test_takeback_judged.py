"""A soft take-back followed by a word judging the value, not a new value
("Actually, it's fine / correct / deprecated"), changes nothing: cue33's
soft take-back stored "the timeout is fine" and lost the 30s the person
said (test33b T2).  ``statement_of`` is what the prompt hook, the proxy and
the transcript sync all read a "remember that" prompt with."""

from __future__ import annotations

import pytest

from objstore.capture.statements import statement_of


@pytest.mark.parametrize("prompt, want", [
    ("remember that the timeout is 30s. Actually, it's fine", "the timeout is 30s"),
    ("remember that the port is 80. Actually, it's correct", "the port is 80"),
    ("remember that the queue is sqs. Actually, it's deprecated", "the queue is sqs"),
    ("remember that the timeout is 30s. Actually, it's fine as is", "the timeout is 30s"),
    # a new value still corrects it
    ("remember that the timeout is 30s. Actually, it's 45s", "the timeout is 45s"),
    ("remember that the queue is sqs. I mean rabbitmq", "the queue is rabbitmq"),
])
def test_a_judging_word_after_a_soft_take_back_is_no_new_value(prompt, want):
    assert statement_of(prompt) == want
