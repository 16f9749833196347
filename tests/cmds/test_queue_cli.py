"""mem queue and the parking path of mem remember, through the CLI."""

from __future__ import annotations


def _setup(invoke):
    invoke("remember", "project/acme/db", "postgres 16 on port 5433")
    r = invoke("remember", "project/acme/db", "postgres 17", "--trust", "agent_observed", "--json").json
    assert r["queued"] and r["written"] is False
    return r["queued"]


def test_remember_reports_queued(invoke):
    invoke("remember", "project/acme/db", "postgres 16 on port 5433")
    r = invoke("remember", "project/acme/db", "postgres 17", "--trust", "derived")
    assert r.stdout.startswith("queued for review: ") and "unchanged" in r.stdout
    assert invoke("get", "project/acme/db").stdout == "postgres 16 on port 5433\n"


def test_list_show_accept(invoke):
    iid = _setup(invoke)
    lst = invoke("queue", "list", "--json").json
    assert [i["id"] for i in lst] == [iid]
    assert lst[0]["current"]["body"] == "postgres 16 on port 5433" and lst[0]["kind"] == "challenge"
    assert invoke("queue").stdout.startswith(iid[:12])
    shown = invoke("queue", "show", iid[:8]).stdout
    assert "current (v1, user_stated):\npostgres 16 on port 5433" in shown and "proposed:\npostgres 17" in shown
    d = invoke("queue", "accept", iid[:8], "--json").json
    assert d["action"] == "accepted" and d["written"] and d["version_number"] == 2
    log = invoke("log", "project/acme/db", "--json").json
    assert [(v["version"], v["body"], v["trust"]) for v in log] == [
        (2, "postgres 17", "user_stated"), (1, "postgres 16 on port 5433", "user_stated")]
    assert invoke("queue", "list", "--json").json == []
    assert invoke("queue").stdout == "the review queue is empty\n"


def test_accept_with_value_and_reject(invoke):
    iid = _setup(invoke)
    invoke("queue", "accept", iid[:8], "--value", "postgres 17.1")
    assert invoke("get", "project/acme/db").stdout == "postgres 17.1\n"
    r = invoke("remember", "project/acme/db", "postgres 18", "--trust", "agent_observed", "--json").json
    out = invoke("queue", "reject", r["queued"][:10]).stdout
    assert "keeps its value" in out
    # an agent writing the rejected value again: refused (exit 6), nothing queued
    res = invoke("remember", "project/acme/db", "postgres 18", "--trust", "agent_observed", exit_code=6)
    assert "rejected" in res.stderr
    assert invoke("queue", "list", "--json").json == []
    assert invoke("fsck").exit_code == 0


def test_errors_have_exit_codes(invoke):
    invoke("init")
    r = invoke("queue", "show", "abcd1234", exit_code=4)
    assert r.stderr.startswith("Error: no queued item abcd1234")
    invoke("queue", "accept", "zz!", exit_code=2)
    invoke("remember", "project/a/p", "1")
    invoke("remember", "project/a/q", "2")
    assert invoke("queue", "flag", "project/a/p", "project/a/q", "--json").json["new"] is True
    assert invoke("queue", "flag", "project/a/p", "project/a/q").stdout.startswith("already queued")
    iid = invoke("queue", "list", "--json").json[0]["id"]
    invoke("queue", "reject", iid)
    invoke("queue", "flag", "project/a/p", "project/a/q", exit_code=6)
    invoke("queue", "flag", "project/a/p", "project/a/p", exit_code=2)
