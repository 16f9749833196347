"""test33 T22: "remember that the db port is 6543" typed in a project whose
key ``project/<p>/db-port`` holds 5432 was written as a second key
(``project/<p>/remembered/db-port``): ``mem get`` and recall's first hit
kept serving 5432 and the session block listed both as current.  The
statement is now the existing key's next version (design.md "Ranking
facts" rule 5: both keys are one name).  Real ``mem`` and ``mem hook``
processes on a real store."""

from __future__ import annotations

import json
import subprocess
import sys

from objstore import list_keys
from objstore.memory.facts import versions
from objstore.memory.opening import open_store
from objstore.memory.scope import project_aliases
from tests.conftest import wait_remember_done
from tests.hooks._util import CWD, REPO, hook_env, payload, run_hook_done, store_as_it_was

SID = "0b1c2d3e-0000-4000-8000-0000000033a2"


def _mem(store, *args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "cmds", *args], env=hook_env(store), cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    if args[0] == "remember":
        wait_remember_done(store)    # (its index commit runs in a detached child: the store is copied next)
    return p


def test_a_statement_of_an_existing_keys_name_is_its_next_version(tmp_path):
    store = tmp_path / "store"
    rc, *_ = run_hook_done(store, payload("SessionStart", SID, None, source="startup"))
    assert rc == 0 and (store / "config").is_file()
    project = project_aliases(CWD, store_root=store)[0]
    key = f"project/{project}/db-port"
    assert _mem(store, "remember", key, "5432").returncode == 0
    rc, out, err, _dt = run_hook_done(store, payload("UserPromptSubmit", SID, None,
                                                     prompt="remember that the db port is 6543"),
                                      reset=store_as_it_was(store, tmp_path / "was"))
    assert rc == 0 and "Remembered as you asked" in out, (out, err)
    with open_store(store) as s:
        keys = [k for k, _h in list_keys(s)]
        assert f"project/{project}/remembered/db-port" not in keys, keys
        assert [v.fact.body for v in versions(s, key)] == ["the db port is 6543", "5432"]
        assert [v.fact.trust for v in versions(s, key)][0] == "user_stated"
    got = _mem(store, "get", key)
    assert got.returncode == 0 and "6543" in got.stdout and "5432" not in got.stdout, got
    got = _mem(store, "recall", "which db port", "--project", project, "--json")
    assert got.returncode == 0, got.stderr
    hits = [h for h in json.loads(got.stdout)["hits"] if h["kind"] == "fact"]
    assert hits and hits[0]["key"] == key and "6543" in json.dumps(hits[0]), hits
    rc, out, _err, _dt = run_hook_done(store, payload("SessionStart", SID[:-4] + "0002", None, source="startup"))
    block = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "6543" in block and "5432" not in block, block


def test_a_statement_in_another_project_is_its_own_key(tmp_path):
    """Only the scope's own key of the name: another project's db-port is untouched."""
    store = tmp_path / "store"
    rc, *_ = run_hook_done(store, payload("SessionStart", SID, None, source="startup"))
    project = project_aliases(CWD, store_root=store)[0]
    assert _mem(store, "remember", "project/elsewhere-9/db-port", "5432").returncode == 0
    rc, out, _err, _dt = run_hook_done(store, payload("UserPromptSubmit", SID, None,
                                                      prompt="remember that the db port is 6543"),
                                       reset=store_as_it_was(store, tmp_path / "was"))
    assert rc == 0 and "Remembered as you asked" in out
    with open_store(store) as s:
        assert [v.fact.body for v in versions(s, "project/elsewhere-9/db-port")] == ["5432"]
        assert [v.fact.body for v in versions(s, f"project/{project}/remembered/db-port")] == [
            "the db port is 6543"]


def test_a_statement_of_a_key_whose_value_was_lost_is_its_next_version(tmp_path):
    """test34b T21: the key's current value lost to damage ('mem fsck
    --repair' kept a 'lost' placeholder): "remember that …" filed the new
    value under ``db-port-<hash>`` and the key itself kept failing (exit
    13).  The person's new word is the key's next version and ends it."""
    store = tmp_path / "store"
    rc, *_ = run_hook_done(store, payload("SessionStart", SID, None, source="startup"))
    assert rc == 0
    project = project_aliases(CWD, store_root=store)[0]
    key = f"project/{project}/remembered/db-port"
    for value in ("the db port is 5432", "the db port is 6543"):
        assert _mem(store, "remember", key, value).returncode == 0
    head = json.loads(_mem(store, "log", key, "--json").stdout)[0]["id"]
    (store / "objects" / head[:2] / head[2:]).write_bytes(b"garbage")   # the current value's object
    r = _mem(store, "fsck", "--repair")
    assert r.returncode == 13 and "the current value of " + key + " was lost" in r.stdout, r
    assert _mem(store, "get", key).returncode == 13
    rc, out, err, _dt = run_hook_done(store, payload("UserPromptSubmit", SID, None,
                                                     prompt="remember that the db port is 7777"),
                                      reset=store_as_it_was(store, tmp_path / "as-it-was"))
    assert rc == 0 and "Remembered as you asked" in out and key + " =" in out, (out, err)
    with open_store(store) as s:
        keys = [k for k, _h in list_keys(s)]
        assert [k for k in keys if "db-port" in k] == [key], keys
        assert [v.fact.version for v in versions(s, key)] == [3, 2, 1]   # after the lost one (v2)
    got = _mem(store, "get", key)
    assert got.returncode == 0 and got.stdout.strip() == "the db port is 7777", got
    assert _mem(store, "fsck").returncode == 0
