"""ux36: the messages a first-day user meets on an empty store.  ``mem
keys`` and ``mem sessions`` printed nothing at all (was the store empty, the
prefix wrong, capture off?); ``mem show`` of a name that is nothing gave no
way on; ``mem review`` with standard input not a terminal said "Tab
completes; Ctrl-D quits", which means nothing there.  Real ``mem``
processes on a real store."""

from __future__ import annotations


def test_keys_and_sessions_say_when_none_is_listed(mem, store_path):
    mem("init")
    r = mem("keys")
    assert r.stdout == "" and "no keys yet" in r.stderr and "mem remember KEY VALUE" in r.stderr, r.stderr
    mem("remember", "project/api/db-host", "the db host is pg-main-7")
    r = mem("keys", "project/web")
    assert r.stdout == "" and "no keys under project/web" in r.stderr, r.stderr
    r = mem("keys", "project/api")
    assert "project/api/db-host" in r.stdout and r.stderr == "", r.stderr
    r = mem("sessions")
    assert r.stdout == "" and "no sessions captured yet" in r.stderr and "mem import" in r.stderr, r.stderr
    assert mem("keys", "project/web", "--json").stdout.strip() == "[]"


def test_show_of_nothing_says_where_to_look(mem, store_path):
    mem("init")
    r = mem("show", "nosuchthing", exit_code=4)
    assert "nothing named 'nosuchthing'" in r.stderr and "mem keys" in r.stderr, r.stderr


def test_review_piped_does_not_speak_of_keys(mem, store_path):
    mem("init")
    r = mem("review", input="")
    assert "the review queue is empty" in r.stdout and "Tab completes" not in r.stdout, r.stdout
    assert "one per line from standard input" in r.stdout, r.stdout
