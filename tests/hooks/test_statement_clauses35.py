"""Session 35 (lead, test35's findings): a statement is filed under the
key of what it is about, whatever else the prompt says.

T1/T5: "Remember: our staging database runs on port 5432 and the deploy day
is Tuesday." was one fact under ``…/staging-database-runs-port-5432-deploy``
(the value in its name): a later "… on port 6543 and …" or "the deploy day
is Wednesday" could not supersede it, and both were served as current.
T2: "Remember: actually the staging db port is 6543 now." was filed under
``…/actually-staging-db-port`` beside the 5432 of ``…/staging-db-port``.
T4: "we upgraded Node to 20" after "the Node version is 18" was another key
(``upgraded-node``), and the prompt hook served only the 18.
T8: "Remember that Bob is the on-call engineer now." was filed under
``…/bob`` beside Alice's ``…/call-engineer``.
T3: the prompt hook served a turn stating an older value beside the current
fact with nothing saying which is newer (``mem recall`` marks it).
Real ``mem hook claude-code`` processes, read back with ``mem log``."""

from __future__ import annotations

import subprocess
import sys

from objstore.capture.statements import further_statements, statement_key, statement_of
from tests.hooks._util import REPO, hook_env
from tests.hooks.test_remember_cue33 import _Hooked

OTHER = "35353535-0000-4000-8000-000000000035"

JOINED = [  # (prompt, the statements it states, in order)
    ("Remember: our staging database runs on port 5432 and the deploy day is Tuesday.",
     ["our staging database runs on port 5432", "the deploy day is Tuesday"]),
    ("remember that the api is fastapi, the worker runs celery; the cache is redis",
     ["the api is fastapi", "the worker runs celery", "the cache is redis"]),
    ("remember that we use pnpm and we deploy on Fridays", ["we use pnpm", "we deploy on Fridays"]),
    # one statement: a list of values, one predicate of two subjects, a condition
    ("remember that we use pnpm and vitest", ["we use pnpm and vitest"]),
    ("remember that the db host and the cache host are pg-3", ["the db host and the cache host are pg-3"]),
    ("remember that the flag is on if the env is prod and the cache is warm",
     ["the flag is on if the env is prod and the cache is warm"]),
    ("remember that the port is 5432, the default", ["the port is 5432, the default"]),
    # test35b T1: a second part naming a role's holder first; T9: a statement inside quotes is a value
    ("remember that Bob is the on-call engineer now and Carol is the release manager",
     ["Bob is the on-call engineer now", "Carol is the release manager"]),
    ('remember that the error message we show is "the file is missing, the disk is full"',
     ['the error message we show is "the file is missing, the disk is full"']),
    ("remember that the error we log is `the host is down, the port is closed`",
     ["the error we log is `the host is down, the port is closed`"]),
]

KEYED = [  # (statement, key name)
    ("we upgraded Node to 20", "node-version"),
    ("we have just upgraded postgres from 15 to 16", "postgres-version"),
    ("I bumped the replica count to 5", "replica-count"),
    ("we switched the db to 8 replicas", "db"),
    ("we switched the db to read-only", "switched-db-read"),              # test35b T8: a mode, not the db's value
    ("we set the api to verbose", "set-api-verbose"),
    ("we raised the max upload size to 50 MB", "max-upload-size"),
    ("Bob is the on-call engineer now", "call-engineer"),                  # T8: the role, not the name
    ("Postgres is our database", "database"),
    ("It is the default", "default"),
    # a purpose, or a move, is no new value of the thing
    ("we updated the docs to mention it", "updated-docs-mention"),
]


def test_the_statements_a_prompt_joins_are_read_apart():
    for prompt, want in JOINED:
        assert [statement_of(prompt), *further_statements(prompt)] == want, prompt
    assert statement_of("Remember: actually the staging db port is 6543 now.") == "the staging db port is 6543 now"
    assert statement_of("remember that indeed, the db port is 6543") == "the db port is 6543"
    assert statement_of("remember that in fact tables the key is the date") == \
        "in fact tables the key is the date"   # test35b T13: "fact tables", no correction word
    for said, name in KEYED:
        assert statement_key(said, "web") == f"project/web/remembered/{name}", said


def test_each_clause_and_each_correction_is_its_keys_next_version(tmp_path):
    s = _Hooked(tmp_path)
    s.prompt("Remember: our staging database runs on port 5432 and the deploy day is Tuesday.")
    s.prompt("Remember: our staging database runs on port 6543 and the deploy day is Tuesday.")   # T1
    s.prompt("remember that the deploy day is Wednesday")                                         # T5
    s.prompt("Remember: the staging db port is 5432.")
    s.prompt("Remember: actually the staging db port is 6543 now.")                               # T2
    s.prompt("Remember that the Node version is 18.")
    s.prompt("Remember that we upgraded Node to 20.")                                             # T4
    s.prompt("Remember that the on-call engineer is Alice.")
    s.prompt("Remember that Bob is the on-call engineer now.")                                    # T8
    assert sorted(k.rsplit("/", 1)[1] for k in s.remembered()) == [
        "call-engineer", "deploy-day", "node-version", "staging-database-runs", "staging-db-port"]
    assert s.log("call-engineer") == ["Bob is the on-call engineer now", "the on-call engineer is Alice"]
    assert s.log("staging-database-runs") == ["our staging database runs on port 6543",
                                              "our staging database runs on port 5432"]
    assert s.log("deploy-day")[0] == "the deploy day is Wednesday"
    assert s.log("staging-db-port") == ["the staging db port is 6543 now", "the staging db port is 5432"]
    assert s.log("node-version") == ["we upgraded Node to 20", "the Node version is 18"]
    said = _Hooked(tmp_path, sid=OTHER).prompt("which node version do we use?")   # (another session)
    assert "we upgraded Node to 20" in said and "is 18" not in said, said


def test_a_turn_stating_an_older_value_is_marked_beside_the_current_fact(tmp_path):
    s = _Hooked(tmp_path)
    s.prompt("the flaky test fails because the staging redis listens on port 6380 not 6379")
    from tests.hooks._util import wait_store_processes_gone
    wait_store_processes_gone(s.store)
    p = subprocess.run([sys.executable, "-m", "cmds", "remember", "project/proj/staging-redis-port", "6390"],
                       text=True, capture_output=True, env=hook_env(s.store), cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr
    said = _Hooked(tmp_path, sid=OTHER).prompt("which port does the staging redis listen on?")
    lines = said.splitlines()
    fact = [i for i, x in enumerate(lines) if x.startswith("- project/proj/staging-redis-port ")]
    turn = [i for i, x in enumerate(lines) if "listens on port 6380" in x]
    assert fact and turn and fact[0] < turn[0], said
    assert "updated later: project/proj/staging-redis-port holds the current value" in lines[turn[0]], said


def _remember(store, key: str, value: str) -> None:
    p = subprocess.run([sys.executable, "-m", "cmds", "remember", key, value], text=True, capture_output=True,
                       env=hook_env(store), cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr


def test_a_value_said_of_the_past_marks_no_fact_and_a_change_in_other_words_does(tmp_path):
    """T6: "the db port used to be 5432 back in 2023" (history) and "last year
    the db port was changed from 5432 to 6543" (a change to the current value)
    marked the current 6543 MAY BE OUT OF DATE and were served above it.
    T7: "we switched the database port to 6543" ("database", the key's "db")
    was seen by recall, not by the hook, which served the stale 5432 alone."""
    from tests.hooks._util import wait_store_processes_gone
    past, moved = tmp_path / "past", tmp_path / "moved"
    s = _Hooked(past)
    _remember(s.store, "project/proj/db-port", "6543")
    s.prompt("the db port used to be 5432 back in 2023, before the migration")
    s.prompt("last year the db port was changed from 5432 to 6543")
    wait_store_processes_gone(s.store)
    said = _Hooked(past, sid=OTHER).prompt("which port does the db use?")
    assert "- project/proj/db-port (recorded " in said and "MAY BE OUT OF DATE" not in said, said
    s = _Hooked(moved)
    _remember(s.store, "project/proj/db-port", "5432")
    s.prompt("we switched the database port to 6543")
    wait_store_processes_gone(s.store)
    said = _Hooked(moved, sid=OTHER).prompt("which port does the db use?")
    lines = said.splitlines()
    fact = [x for x in lines if x.startswith("- project/proj/db-port ")]
    assert fact and "MAY BE OUT OF DATE" in fact[0], said
    assert any("we switched the database port to 6543" in x for x in lines[:lines.index(fact[0])]), said
    after = tmp_path / "after"   # test35b T4: a time a change happened at is no history
    s = _Hooked(after)
    _remember(s.store, "project/proj/db-port", "5432")
    s.prompt("After the migration last week the db port was 6543, so update the config.")
    wait_store_processes_gone(s.store)
    said = _Hooked(after, sid=OTHER).prompt("which port does the db use?")
    fact = [x for x in said.splitlines() if x.startswith("- project/proj/db-port ")]
    assert fact and "MAY BE OUT OF DATE" in fact[0], said


def test_a_statement_in_another_spelling_is_the_scope_keys_next_version(tmp_path):
    """T11: "remember that the database port is 6543" where
    ``project/proj/db-port`` = 5432 went to ``…/remembered/database-port``;
    ``mem get project/proj/db-port`` and the hook kept serving 5432."""
    s = _Hooked(tmp_path)
    _remember(s.store, "project/proj/db-port", "5432")
    assert "project/proj/db-port" in s.prompt("remember that the database port is 6543")
    p = subprocess.run([sys.executable, "-m", "cmds", "get", "project/proj/db-port"], text=True, capture_output=True,
                       env=hook_env(s.store), cwd=REPO, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "the database port is 6543", (p.stdout, p.stderr)
    assert not s.remembered()
