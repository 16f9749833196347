"""Session 34 (lane cue34): one subject, one key — a restated fact supersedes,
it does not pile up (test33b T3, T12, test33 T8, test33b T15).

T3: "the db runs postgres 15" was keyed ``db-runs-postgres`` (the value's
first word in the key), so "the db now runs mysql 8" filed a second current
key ``db-runs-mysql``.  A statement without a copula is keyed by its subject
and verb (``db-runs``); a store's older ``db-runs-postgres`` goes on.
T12: a store's ``db-currently-runs`` (``cache-currently``, ``team-still``)
was followed only when the new statement said "currently" again.
T8: "the shop database port", "the db port for the shop" after "the shop db
port" filed new keys.
T15 (rest): "the band is b1... b2 actually" kept b1.
Real ``mem hook claude-code`` processes, read back from the store."""

from __future__ import annotations

from objstore import open_store
from objstore.capture.statements import statement_key, statement_of
from objstore.memory.facts import remember
from tests.hooks.test_remember_cue33 import _Hooked

NAMED = [  # (statement, the words of its key)
    ("the db runs postgres 15", ["db", "runs"]),
    ("the db now runs mysql 8", ["db", "runs"]),
    ("the db currently runs postgres 16", ["db", "runs"]),
    ("we deploy on Thursdays now", ["deploy", "thursdays"]),   # a pronoun subject: the value names it, as before
    ("the api listens on port 8080", ["api", "listens"]),
    ("the api listens on port 9090 in staging", ["api", "listens", "staging"]),   # where it holds: another fact
    ("the api host points to lb-2", ["api", "host", "points"]),
    ("the tests run on ci-4", ["tests", "run"]),
    ("we use black for formatting", ["use", "black", "formatting"]),   # a pronoun subject: as before
    ("the api uses fastapi", ["api", "uses", "fastapi"]),   # a verb of many values: the value stays in the key
    ("the db port 5432", ["db", "port"]),                           # no verb, no copula: the first words as before
    ("the shop db port is 5432", ["shop", "db", "port"]),
]


def test_a_statement_without_a_copula_is_named_by_its_subject_and_verb():
    for said, words in NAMED:
        assert statement_key(said, None) == "user/remembered/" + "-".join(words), said
    assert statement_of("remember that the band is b1... b2 actually") == "the band is b2"   # T15
    assert statement_of("remember that the band is b1\u2026 b2 actually.") == "the band is b2"
    assert statement_of("remember that the band is b1... b2") == "the band is b1"   # no take-back said
    assert statement_of("remember that the band is b1... actually it is great") == "the band is b1"


def _seeded(tmp_path, old: dict[str, str]) -> _Hooked:
    """A session whose store holds ``old`` (key name -> value) as a store of an older version named them."""
    s = _Hooked(tmp_path)
    s.prompt("remember that the cache host is redis-9")
    with open_store(s.store) as st:
        for name, body in old.items():
            remember(st, f"project/proj/remembered/{name}", body, trust="user_stated", owner="user")
    return s


def _current(s: _Hooked) -> dict[str, str]:
    return {k.rpartition("/")[2]: v[0] for k, v in s.remembered().items()}


def _one_key(tmp_path, said: list[str], name: str, like: str) -> _Hooked:
    """Each of ``said`` through the prompt hook, confirmed; every version in the key ``name``, newest first, and
    no other current key whose name holds ``like``."""
    s = _Hooked(tmp_path)
    for words in said:
        assert "Remembered as you asked" in s.prompt(f"remember that {words}"), words
    assert s.log(name) == list(reversed(said))
    assert [k for k in _current(s) if like in k] == [name]
    return s


def test_a_verb_statement_of_a_new_value_supersedes_the_old(tmp_path):
    """T3 through the prompt hook: one key ``db-runs``, mysql 8 its current value."""
    _one_key(tmp_path, ["the db runs postgres 15", "the db now runs postgres 16", "the db still runs postgres 17",
                        "the db now runs mysql 8"], "db-runs", "db")


def test_an_older_stores_keys_of_a_subject_go_on(tmp_path):
    """T3 and T12 on a store an older version wrote: ``db-runs-postgres`` (the value's word in its name),
    ``db-currently-runs``, ``cache-currently``, ``team-still`` take the new statement as their next version,
    said with or without "now"/"currently"/"still"; two keys one subject was filed under both take it."""
    s = _seeded(tmp_path, {"db-runs-postgres": "the db runs postgres 15",
                           "queue-currently-runs": "the queue currently runs sqs",
                           "cache-currently": "the cache currently is redis",
                           "team-still": "the team still is platform"})
    for said in ("remember that the db now runs mysql 8", "remember that the queue runs rabbitmq",
                 "remember that the cache is now valkey", "remember that the team is infra"):
        assert "Remembered as you asked" in s.prompt(said), said
    assert _current(s) == {"cache-host": "the cache host is redis-9", "db-runs-postgres": "the db now runs mysql 8",
                           "queue-currently-runs": "the queue runs rabbitmq", "cache-currently": "the cache is now valkey",
                           "team-still": "the team is infra"}
    # a store that had already filed the subject under two keys (base: db-currently-runs 15 beside db-runs-postgres 16)
    s2 = _seeded(tmp_path / "two", {"db-currently-runs": "the db currently runs postgres 15",
                                    "db-runs-postgres": "the db runs postgres 16"})
    s2.prompt("remember that the db runs postgres 18")
    got = _current(s2)
    assert got["db-currently-runs"] == got["db-runs-postgres"] == "the db runs postgres 18", got
    assert "db-runs" not in got, got


def test_a_subject_said_in_other_words_is_one_key(tmp_path):
    """T8 through the prompt hook: "database" for "db", "the db port for the shop", the possessive: one key."""
    s = _one_key(tmp_path, ["the shop db port is 5432", "the shop database port is 6543",
                             "the db port for the shop is now 7000", "the shop's db port is 7001"], "shop-db-port", "port")
    # another subject stays its own key
    s.prompt("remember that the shop api port is 8080")
    assert _current(s)["shop-api-port"] == "the shop api port is 8080"
    assert _current(s)["shop-db-port"] == "the shop's db port is 7001"


def test_a_second_value_of_a_verb_of_many_values_is_another_fact(tmp_path):
    """The lead's review of cue34: "we use pnpm" then "we use vitest" (a package manager and a test runner),
    "the api uses fastapi" then "the api uses redis", "I prefer tabs" then "I prefer dark mode" were filed as one
    key, the first value no longer current.  A pronoun subject or a verb one subject holds many values of
    (``statementkey._MANY``) keeps the value in the key: both stay current."""
    s = _Hooked(tmp_path)
    pairs = [("we use pnpm", "we use vitest"), ("the api uses fastapi", "the api uses redis"),
             ("I prefer tabs", "I prefer dark mode"), ("we deploy to fly", "we deploy on Thursdays")]
    for a, b in pairs:
        for words in (a, b):
            assert "Remembered as you asked" in s.prompt(f"remember that {words}"), words
    current = set(_current(s).values())
    for a, b in pairs:
        assert a in current and b in current, (a, b, _current(s))


def test_a_value_taken_back_after_an_ellipsis_is_not_stored(tmp_path):
    """T15 (rest) through the prompt hook."""
    s = _Hooked(tmp_path)
    assert "the band is b2" in s.prompt("remember that the band is b1... b2 actually")
    assert s.log("band") == ["the band is b2"]


def test_a_key_sealed_under_its_older_name_still_refuses_and_withholds(tmp_path):
    """A verb statement's key sealed as an older version named it (``db-runs-postgres``): the statement, now
    named ``db-runs``, is refused there and its prompt captured withheld, never written in the clear."""
    from tests.hooks._util import mem_runner, turns, vault_project
    import json
    home, _cwd, hook = vault_project(tmp_path)
    mem = mem_runner(home)
    assert "Remembered as you asked" in json.loads(hook("remember that the cache host is redis-9"))[
        "hookSpecificOutput"]["additionalContext"]
    mem("remember", "project/api/remembered/db-runs-postgres", "the db runs postgres 15")
    mem("seal", "project/api/remembered/db-runs-postgres")
    said = json.loads(hook("remember that the db runs postgres zqx-16"))["hookSpecificOutput"]["additionalContext"]
    assert "Not stored, though asked: project/api/remembered/db-runs-postgres is sealed" in said, said
    assert not any("zqx-16" in t[3] for t in turns(home))
    import subprocess
    import sys
    from tests.hooks._util import REPO, hook_env
    keys = subprocess.run([sys.executable, "-m", "cmds", "keys"], env=hook_env(home), cwd=REPO, capture_output=True,
                          text=True, timeout=120).stdout.split()
    assert "project/api/remembered/db-runs" not in keys, keys
