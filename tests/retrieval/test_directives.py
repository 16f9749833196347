"""The directive kind (issue 16): stored and searchable on request, held out
of injection, the session block and default recall."""

from __future__ import annotations

from objstore.memory import facts
from objstore.retrieval.context import render_context
from objstore.retrieval.inject import inject_for_prompt
from objstore.retrieval.recall import recall
from objstore.retrieval.search import search


def _store(store):
    facts.remember(store, "project/p/db-port", "the database listens on port 5433")
    facts.remember(store, "project/p/ask-db-port", "which port does the database listen on?", kind="directive")
    return store


def test_directives_are_held_out_unless_asked_for(store):
    _store(store)
    keys = lambda hits: {h.key for h in hits if h.kind == "fact"}  # noqa: E731
    assert keys(recall(store, "which port does the database listen on").hits) == {"project/p/db-port"}
    got = recall(store, "which port does the database listen on", include_directives=True).hits
    assert keys(got) == {"project/p/db-port", "project/p/ask-db-port"}
    assert {h.fact_kind for h in got if h.kind == "fact"} == {"project", "directive"}
    assert {r.ref for r in search(store, "database port")} == {"project/p/db-port"}
    assert {r.ref for r in search(store, "database port", include_directives=True)} == {
        "project/p/db-port", "project/p/ask-db-port"}
    block = render_context(store, ["p"])
    assert "5433" in block.text and "which port" not in block.text
    inj = inject_for_prompt(store, "s-1", "which port does the database listen on?", project="p")
    assert "which port does the database listen on?" not in inj.text


def test_cli_directive_kind(invoke):
    invoke("remember", "project/p/goal", "ship the importer by friday", "--kind", "directive")
    assert invoke("log", "project/p/goal", "--json").json[0]["kind"] == "directive"
    assert invoke("search", "importer", "friday", "--json").json == []
    hits = invoke("search", "importer", "friday", "--include-directives", "--json").json
    assert [h["key"] for h in hits] == ["project/p/goal"]
    r = invoke("recall", "importer friday", "--all-projects", "--include-directives", "--json").json
    assert [h["key"] for h in r["hits"]] == ["project/p/goal"]
    assert invoke("recall", "importer friday", "--all-projects", "--json").json["hits"] == []


def test_a_restatement_of_a_selected_fact_is_dropped(store):
    facts.remember(store, "project/p/deploy", "deploys run from the release branch every tuesday")
    facts.remember(store, "project/p/deploy-note", "release branch deploys happen on tuesday",
                   edges=[("derived_from", "project/p/deploy")])
    facts.remember(store, "project/p/deploy-v1", "tuesday deploys from release branch (v1 restated)",
                   edges=[("derived_from", "project/p/deploy@v1")])
    hits = recall(store, "when do release branch deploys run tuesday").hits
    assert [h.key for h in hits if h.kind == "fact"] == ["project/p/deploy"]
    # alone (the source not among the hits), a derived fact is shown
    hits = recall(store, "release branch deploys happen", what="facts", limit=1).hits
    assert len(hits) == 1
    # two facts derived from each other both stay
    facts.remember(store, "user/a", "kiwi mango smoothie")
    facts.remember(store, "user/b", "mango kiwi smoothie", edges=[("derived_from", "user/a")])
    facts.remember(store, "user/a", "kiwi mango smoothie!", edges=[("derived_from", "user/b")])
    assert {h.key for h in recall(store, "kiwi mango smoothie").hits
            if h.kind == "fact"} >= {"user/a", "user/b"}


def test_dropped_restatements_leave_room_for_further_hits(store):
    """--limit N gives N hits when N are there: a restatement dropped from
    the first N lets the next candidate in (a question in the past tense:
    no supersession pool to absorb it)."""
    facts.remember(store, "project/shop/db", "the shop database is postgres 16")
    for i in range(3):  # restatements that rank among the first hits
        facts.remember(store, f"project/shop/db-note{i}", f"shop database {i}",
                       edges=[("derived_from", "project/shop/db")])
    for name, text in (("cache", "the shop database cache is redis"), ("owner", "the shop database team owns it"),
                       ("replica", "the shop database replica runs in eu-west"),
                       ("backup", "backups of the shop database go to s3")):
        facts.remember(store, f"project/shop/{name}", text)
    q = "what did the shop database use"
    every = [h.key for h in recall(store, q, projects=["shop"], limit=20).hits]
    assert len(every) == 5 and not any("note" in k for k in every)
    for limit in range(1, 9):  # the short notes rank first; the source only 5th
        got = [h.key for h in recall(store, q, projects=["shop"], limit=limit).hits]
        assert len(got) == min(limit, 5) if limit >= 5 else len(got) == limit
        assert not ("project/shop/db" in got and any("note" in k for k in got))  # never with their source
        if limit >= 5:
            assert got == every
    # the namespace path (a reader: read further, then demote) fills up the same way
    assert [h.key for h in recall(store, q, projects=["shop"], limit=6, namespace="S1").hits] == every
