"""Session 36 (lane stmt36, test35b T11, T12): a change said by who made it
is the next version of the thing changed, whatever its value is and however
many things one sentence changes.

T11: "we set/changed/rotated the db password to X" was a new key each time
(``set-db-password``, ``changed-db-password``, …: three "current" passwords)
while "we set the db port to 6543" is ``db-port``'s next version: the value,
a credential, is removed before the key is named, so the change read as no
change.  Now each is ``db-password``'s next version, and no password is
stored in the clear.
T12: "we upgraded Node to 20 and Python to 3.12" was one fact
``upgraded-node-python``: neither version moved.  Now two changes.
test35 T9: "Remember the db host is db1.internal." (a bare cue, no "please")
stored nothing and said nothing; now filed as "remember that …" is, in the
present tense only ("Remember the db was down last week" recalls a time).
Real ``mem hook claude-code`` processes, read back with ``mem log``."""

from __future__ import annotations

from objstore import scan_store
from objstore.capture.statements import further_statements, statement_key, statement_of
from tests.hooks._util import wait_store_processes_gone
from tests.hooks.test_remember_cue33 import _Hooked

PASSWORDS = ("Tr0ub4dor3xQ", "Zq8hunter2xx", "Pl4inWordXY", "hunter2secret99")

SPLIT = [  # (prompt, the statements it states, in order)
    ("remember that we upgraded Node to 20 and Python to 3.12", ["we upgraded Node to 20", "we upgraded Python to 3.12"]),
    ("remember that we bumped the replica count to 5 and the timeout to 30",
     ["we bumped the replica count to 5", "we bumped the timeout to 30"]),
    ("remember that we upgraded Node to 20, Python to 3.12 and Go to 1.22.",
     ["we upgraded Node to 20", "we upgraded Python to 3.12", "we upgraded Go to 1.22"]),
    # one change: the rest is no change of its own, or inside quotes
    ("remember that we set the timeout to 30 and restarted it", ["we set the timeout to 30 and restarted it"]),
    ("remember that we switched the db to mysql and the cache to redis",
     ["we switched the db to mysql and the cache to redis"]),
    ('remember that we set the banner to "down, and the api to 5"', ['we set the banner to "down, and the api to 5"']),
]


def test_a_changed_password_and_each_listed_change_are_named_by_the_thing_changed():
    for verb in ("set", "changed", "rotated", "reset"):
        for pw in PASSWORDS:
            assert statement_key(f"we {verb} the db password to {pw}", "web") == "project/web/remembered/db-password"
        assert statement_key(f"we {verb} the db password to [REDACTED:password-phrase]", "web") == \
            "project/web/remembered/db-password"
    assert statement_key("we changed the docs to", "web") == "project/web/remembered/changed-docs"   # no value
    for prompt, want in SPLIT:
        assert [statement_of(prompt), *further_statements(prompt)] == want, prompt
    assert statement_key("we upgraded Python to 3.12", "web") == "project/web/remembered/python-version"
    assert statement_key("we bumped the timeout to 30", "web") == "project/web/remembered/timeout"


def test_each_password_change_is_the_keys_next_version_and_none_is_stored(tmp_path):
    s = _Hooked(tmp_path)
    s.prompt("Remember that the db password is Tr0ub4dor3xQ.")
    s.prompt("Remember that we set the db password to Zq8hunter2xx.")
    s.prompt("Remember that we changed the db password to Pl4inWordXY.")
    s.prompt("remember that we rotated the db password to hunter2secret99")
    s.prompt("Remember that the Node version is 18.")
    s.prompt("Remember that the Python version is 3.11.")
    s.prompt("Remember that we upgraded Node to 20 and Python to 3.12.")
    wait_store_processes_gone(s.store, timeout=600)   # (a loaded CI box: generous)
    assert sorted(k.rsplit("/", 1)[1] for k in s.remembered()) == ["db-password", "node-version", "python-version"]
    log = s.log("db-password")
    assert len(log) == 4 and log[0].startswith("we rotated the db password to ") and \
        log[3].startswith("the db password is "), log
    assert s.log("node-version") == ["we upgraded Node to 20", "the Node version is 18"]
    assert s.log("python-version") == ["we upgraded Python to 3.12", "the Python version is 3.11"]
    assert scan_store(s.store, [b"the Python version is 3.11"])   # the scan reads what is stored (it can fail)
    assert scan_store(s.store, [pw.encode() for pw in PASSWORDS]) == []


def test_a_bare_remember_of_a_present_statement_is_filed(tmp_path):
    s = _Hooked(tmp_path)
    s.prompt("Remember the db host is db1.internal.")   # (what it says: the last delivery's, on a loaded machine)
    s.prompt("Remember the api was down last week")
    wait_store_processes_gone(s.store, timeout=600)   # (a loaded CI box: generous)
    assert list(s.remembered()) == ["project/proj/remembered/db-host"]
    assert s.log("db-host") == ["the db host is db1.internal"]
