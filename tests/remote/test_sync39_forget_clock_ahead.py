"""sync38's limit: machine B, its clock ahead, wrote a version quoting the
value machine A then forgot whole, before the forget reached B.  Recorded
"after" the forget by B's clock, it was kept as a person's statement made
after the forget (test27 V14), and B's push brought the forgotten value
back to A.  Now a version from a side that did not hold the forget is
emptied whatever its clock; one stated after the forget arrived still
stays.  Two real stores, a folder remote and S3 (moto), B's fact clock set
ahead as tests/remote/test_clock_skew.py sets it."""

from __future__ import annotations

import pytest

from objstore import current, forget, remember, scan_store
from tests.remote.test_clock_skew import _clock

KEY = "project/acme/launch"
VALUE = "walrus-sunset-6620"
HOUR = 3_600_000


@pytest.mark.parametrize("first", ["a-pushes-first", "b-pushes-first"])
def test_a_version_quoting_the_forgotten_value_from_a_clock_ahead_is_forgotten(machines, monkeypatch, first):
    a = machines("a")
    remember(a.store, KEY, VALUE)
    a.push()
    b = machines("b", clone_from=a)
    _clock(monkeypatch, HOUR)                       # B writes an hour ahead, offline
    remember(b.store, KEY, f"{VALUE} (moved to the vault)")
    monkeypatch.undo()
    forget(a.store, what=KEY)
    if first == "a-pushes-first":
        a.push()
        assert b.pull().forgotten_quoted == 1
        b.push()
        a.pull()
    else:
        b.push()
        assert a.pull().forgotten_quoted == 1
        a.push()
        b.pull()
    for m in (a, b):
        assert m.store.refs.read(f"facts/{KEY}") is None, m.root
        assert scan_store(m.root, [VALUE.encode()]) == [], m.root


def test_stated_again_after_the_forget_arrived_stays_beside_a_forget_the_remote_lacks(machines):
    a = machines("a")
    remember(a.store, KEY, VALUE)
    remember(a.store, "project/acme/other", "something else")
    a.push()
    b = machines("b", clone_from=a)
    forget(a.store, what=KEY)
    a.push()
    b.pull()
    remember(b.store, KEY, f"{VALUE} again, on purpose")   # B holds the forget: the person means it
    b.push()
    forget(a.store, what="project/acme/other")              # a forget the remote does not hold yet
    assert a.pull().forgotten_quoted == 0
    assert current(a.store, KEY).fact.body == f"{VALUE} again, on purpose"
