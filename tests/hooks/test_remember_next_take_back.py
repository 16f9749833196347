"""Session 34 (lane cue34b): test34 T9 -- "forget that", "scratch that",
"never mind, don't remember that", … as the prompt right after a "remember
that" were ignored: the fact stayed current in every later session block,
and the hook said nothing.  Now the fact is taken back (a key the statement
created is forgotten, a key it gave a new version has its earlier value
again) and the hook says so and how to undo it; a retraction naming another
subject, a look-alike, or one not right after the "remember that" takes
nothing back.  Real ``mem hook`` processes on real stores."""

from __future__ import annotations

import pytest

from objstore.capture.retraction import retraction_of
from tests.hooks.test_remember_asked import _Session

#: test34 T9's eight wordings, word for word, and its first one
RETRACTIONS = ["forget that", "scratch that", "never mind, don't remember that",
               "please forget what I said about the db port", "ignore that, it was wrong", "Actually, forget it.",
               "No wait, don't save that.", "undo that last remember",
               "scratch that, don't remember the db port, it was wrong"]
#: look-alikes: another subject, a task, something said besides
LOOK_ALIKES = ["forget the cache, focus on the db", "ignore the failing test",
               "scratch that idea about redis, let's use postgres", "forget it, let's do the api first",
               "please forget the old config file when migrating", "make the app forget that user after logout",
               "don't forget to run the tests", "ok", "thanks"]


def test_the_retraction_wordings_are_read_and_the_look_alikes_not():
    for said in RETRACTIONS:
        assert retraction_of(said) is not None, said
    for said in LOOK_ALIKES:
        assert retraction_of(said) is None, said
    assert retraction_of("please forget what I said about the db port").subject == ("db", "port")


@pytest.mark.parametrize("said", RETRACTIONS)
def test_a_retraction_as_the_next_prompt_takes_the_fact_back(tmp_path, said):
    s = _Session(tmp_path)
    assert "Remembered as you asked" in s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    ctx = s.prompt(said)
    assert "Taken back as you asked: forgot project/" in ctx and "remembered/db-port" in ctx, ctx
    assert "mem remember" in ctx, ctx      # how to undo it
    assert s.remembered() == {}


def test_a_retraction_after_a_new_value_restores_the_earlier_one(tmp_path):
    s = _Session(tmp_path)
    s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    s.prompt("remember that the db port is 6543")
    s.stop("Noted.")
    ctx = s.prompt("scratch that")
    assert "Taken back as you asked" in ctx and "the db port is 5432 again" in ctx, ctx
    (bodies,) = s.remembered().values()
    assert bodies[0] == "the db port is 5432", bodies


def test_look_alikes_another_subject_and_a_later_prompt_take_nothing_back(tmp_path):
    s = _Session(tmp_path)
    s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    for said in LOOK_ALIKES[:4] + ["please forget what I said about the cache host"]:
        assert "Taken back" not in s.prompt(said), said
        s.stop("OK.")
    assert "Taken back" not in s.prompt("forget that")    # not right after the "remember that"
    (bodies,) = s.remembered().values()
    assert bodies == ["the db port is 5432"]


def test_the_undo_the_hook_names_works(tmp_path):
    """The answer says how to keep it after all: saying it again stores it again."""
    s = _Session(tmp_path)
    s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    assert "Taken back" in s.prompt("forget that")
    s.stop("OK.")
    assert "Remembered as you asked" in s.prompt("remember that the db port is 5432")
    (bodies,) = s.remembered().values()
    assert bodies == ["the db port is 5432"]
