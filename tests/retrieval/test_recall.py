"""mem recall: current values only, resolution of old versions, provenance,
fusion, duplicates and project scope, in-process and as a new process."""

from __future__ import annotations

import json
import re

import pytest
from recall_helpers import turn

from objstore.core.errors import InvalidInput
from objstore.memory.facts import remember
from objstore.retrieval.recall import RecallOptions, recall


def texts(res):
    return [h.text for h in res.hits]


def test_superseded_value_never_recalled_same_process(store):
    remember(store, "project/acme/db", "Postgres 15 on port 5432")
    remember(store, "project/acme/db", "Postgres 16 on port 5433")
    for q in (["postgres port"], ["5432"], ["Postgres 15"], ["db", "database port 5432"]):
        res = recall(store, q, projects=("acme",))
        assert res.hits, q
        assert all("5432" not in t and "15" not in t for t in texts(res)), q
        assert res.hits[0].text == "Postgres 16 on port 5433"
    old = recall(store, ["5432"], projects=("acme",)).hits[0]
    assert old.resolved_from is not None and old.resolved_from != old.id
    assert old.version == 2 and old.key == "project/acme/db"


def test_superseded_value_never_recalled_new_process_and_log_keeps_it(store, mem):
    remember(store, "project/acme/db", "Postgres 15 on port 5432")
    remember(store, "project/acme/db", "Postgres 16 on port 5433")
    store.close()
    for q in ("postgres port", "5432"):
        r = mem("recall", q, "--project", "acme", "--json")
        hits = r.json["hits"]
        # a word match: an object id is hex and may hold these digits by chance
        assert not re.search(r"\b5432\b", json.dumps(hits)) and "Postgres 15" not in r.stdout
        assert hits[0]["text"] == "Postgres 16 on port 5433"
    r = mem("recall", "5432", "--project", "acme")
    assert "matched an older version" in r.stdout and not re.search(r"\b5432\b", r.stdout) and "5433" in r.stdout
    log = mem("log", "project/acme/db", "--json").json
    assert [v["body"] for v in log] == ["Postgres 16 on port 5433", "Postgres 15 on port 5432"]


def test_backfill_does_not_become_current(store):
    remember(store, "project/acme/ci", "CI runs on GitHub Actions", valid_from=1_700_000_000_000)
    remember(store, "project/acme/ci", "CI runs on Travis", valid_from=1_600_000_000_000)  # a backfill
    res = recall(store, ["Travis CI"], projects=("acme",))
    assert texts(res) == ["CI runs on GitHub Actions"]
    assert res.resolved == 1


def test_secret_and_forgotten_facts_are_never_returned(store):
    from objstore.memory.facts import fact_doc
    from objstore.core.objects import Fact
    from objstore.core.refs import fact_ref
    f = Fact(key="project/acme/token", kind="project", body="token zebraquokka", version=1, parent=None,
             valid_from=1, recorded_at=1, sensitivity="secret")
    oid = store.put(f)
    store.refs.set_if_equals(fact_ref(f.key), None, oid)
    store.index.add([fact_doc(oid, f)])
    assert store.index.search("zebraquokka", kinds=("fact",))  # the index would serve it...
    assert recall(store, ["zebraquokka token"], projects=None).hits == []  # ...recall never does


def test_turn_provenance_and_neighbours(store, add_sessions):
    add_sessions({"s-old": [turn("which port does the api listen on in staging?", "user"),
                            turn("It listens on 8443 behind the load balancer.", "assistant"),
                            turn("thanks", "user")]})
    res = recall(store, ["api port staging"], what="turns", projects=("acme",))
    got = {h.text: h for h in res.hits}
    assert "It listens on 8443 behind the load balancer." in got  # the answer comes with the question
    q = got["which port does the api listen on in staging?"]
    assert (q.kind, q.session, q.seq, q.role, q.project, q.trust) == ("turn", "s-old", 0, "user", "acme",
                                                                       "user_stated")
    assert q.time == 1_700_000_000_000 and q.harness == "test" and q.source
    a = got["It listens on 8443 behind the load balancer."]
    assert a.trust == "agent_observed" and a.seq == 1
    plain = recall(store, ["api port staging"], what="turns", projects=("acme",),
                   opts=RecallOptions(neighbours=0, session_boost=0))
    assert "It listens on 8443 behind the load balancer." not in texts(plain)


def test_byte_identical_hits_collapse(store, add_sessions):
    same = "pytest -x tests/test_orders.py fails: freezegun clock drift"
    add_sessions({"a": [turn(same)], "b": [turn(same)], "c": [turn("orders are fine " * 3)]})
    res = recall(store, ["freezegun clock drift orders"], what="turns", projects=("acme",))
    assert texts(res).count(same) == 1
    assert next(h for h in res.hits if h.text == same).duplicates == 1


def test_several_phrasings_are_fused(store):
    remember(store, "project/acme/deploy", "Deploys go through the release workflow on a v* tag")
    remember(store, "project/acme/ports", "The admin UI listens on 9000")
    remember(store, "project/acme/owner", "Priya owns the release calendar")
    res = recall(store, ["how do we ship to production", "release workflow tag"], what="facts",
                 projects=("acme",))
    assert res.hits[0].key == "project/acme/deploy"
    both = recall(store, ["release workflow", "v* tag deploys"], what="facts", projects=("acme",))
    assert both.hits[0].key == "project/acme/deploy" and both.hits[0].queries == (0, 1)


def test_project_scope(store, add_sessions):
    remember(store, "project/acme/db", "acme uses postgres")
    remember(store, "project/billing/db", "billing uses mysql, not postgres")
    remember(store, "user/editor", "the user edits postgres dumps in neovim")
    add_sessions({"acme-1": [turn("postgres vacuum settings for acme", project="acme")],
                  "bill-1": [turn("postgres replica for billing", project="billing")]})
    scoped = recall(store, ["postgres"], projects=("acme",))
    refs = {h.key or h.session for h in scoped.hits}
    assert refs == {"project/acme/db", "user/editor", "acme-1"}
    wide = recall(store, ["postgres"], projects=None)
    assert {h.key or h.session for h in wide.hits} >= {"project/billing/db", "bill-1"}


def test_bad_queries(store, invoke):
    with pytest.raises(InvalidInput):
        recall(store, ["   "])
    with pytest.raises(InvalidInput):
        recall(store, ["x"], what="everything")
    with pytest.raises(InvalidInput):  # no searchable word: a usage error, as the help says (issue 21)
        recall(store, ["* ( ) :"])
    assert recall(store, ["* ( ) :", "zzzqqq"]).hits == []  # one phrasing with a word is enough
    r = invoke("recall", "", exit_code=2)
    assert "nothing to recall" in r.stderr


def test_cli_text_and_json(store, invoke, add_sessions):
    remember(store, "project/acme/db", "Postgres 16 on port 5433")
    add_sessions({"s1": [turn("the acme postgres container needs 2 GB of shared memory")]})
    r = invoke("recall", "postgres", "--project", "acme")
    assert "fact  project/acme/db" in r.stdout and "turn  s1#0" in r.stdout
    j = invoke("recall", "postgres", "--project", "acme", "--what", "facts", "--json").json
    assert j["project"] == "acme" and [h["kind"] for h in j["hits"]] == ["fact"]
    assert {"key", "version", "resolved_from", "trust", "text"} <= set(j["hits"][0])
    r = invoke("recall", "zzzqqq", "--project", "acme")
    assert r.stdout == "" and "nothing recalled" in r.stderr
    t = invoke("recall", "postgres", "--all-projects", "--json").json
    assert t["project"] is None


def test_a_first_release_index_still_answers(store_path, mem):
    """A store indexed by the first release's analyzer (no stemming, no seq)
    is read as it is; mem reindex brings it to the current format."""
    from objstore.retrieval.evaluate import write_sessions
    from objstore.memory.opening import open_store
    with open_store(store_path, create=True, analyzer="words") as st:
        remember(st, "project/acme/db", "Postgres 16 on port 5433")
        write_sessions(st, [("s1", [turn("running the migrations")])])
    meta = json.loads(next((store_path / "index" / "turns").glob("gen-*/meta.json")).read_text())
    assert "mem_words" in json.dumps(meta["schema"])
    r = mem("recall", "migrations", "--project", "acme", "--json").json
    assert [h["session"] for h in r["hits"]] == ["s1"]
    mem("reindex")
    meta = json.loads(next((store_path / "index" / "turns").glob("gen-*/meta.json")).read_text())
    assert "mem_simple_stem" in json.dumps(meta["schema"])
    r = mem("recall", "migration runs", "--project", "acme", "--json").json  # stemmed now
    assert [h["session"] for h in r["hits"]] == ["s1"]


def test_recall_import_path_stays_light(store, store_path):
    import subprocess
    import sys
    remember(store, "project/acme/db", "Postgres 16 on port 5433")
    store.close()
    code = ("import sys, io, contextlib\n"
            "from cmds.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['--home', {str(store_path)!r}, 'recall', 'postgres', '--all-projects'])\n"
            "print(sorted(m for m in ('cryptography', 'prompt_toolkit', 'objstore.vault.age', 'objstore.vault.sealed')"
            " if m in sys.modules))")
    from tests.conftest import REPO
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]", out.stderr
