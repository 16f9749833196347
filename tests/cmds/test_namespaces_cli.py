"""remember/recall/context with --session/--agent and recall --from-agent:
a sub-agent writes into its namespace, reads its ancestors' and never a
sibling's; --from-agent reads only what that sub-agent recorded."""

from __future__ import annotations


def test_agents_write_and_read_their_namespaces(invoke, monkeypatch):
    monkeypatch.setenv("MEM_PROJECT", "shop")
    invoke("remember", "project/shop/goal", "ship the invoice export by friday", "--session", "S1")
    r = invoke("remember", "project/shop/invoice-bug", "the invoice export drops rows with a null vat id",
               "--session", "S1", "--agent", "explorer", "--json")
    assert r.json["namespace"] == "S1.agent-explorer"
    monkeypatch.setenv("MEM_SESSION", "S1")      # the session from the environment
    invoke("remember", "project/shop/invoice-test", "the invoice export test fixture has no null vat rows",
           "--agent", "tester")
    as_tester = invoke("recall", "invoice export", "--agent", "tester", "--json").json["hits"]
    keys = {h.get("key") for h in as_tester}
    assert {"project/shop/invoice-test", "project/shop/goal"} <= keys               # its own, its parent's
    assert "project/shop/invoice-bug" not in keys                      # a sibling's: never
    as_parent = invoke("recall", "invoice export", "--json").json["hits"]
    assert {"project/shop/invoice-bug", "project/shop/invoice-test"} <= {h.get("key") for h in as_parent}
    only = invoke("recall", "invoice export", "--from-agent", "explorer", "--json").json["hits"]
    assert [h["key"] for h in only] == ["project/shop/invoice-bug"]
    monkeypatch.delenv("MEM_SESSION")
    # without a session, --from-agent finds the one sub-agent of that name (here none has turns: by session id)
    invoke("recall", "invoice", "--from-agent", "nobody", exit_code=4)
    block = invoke("context", "--session", "S1", "--agent", "tester").stdout
    assert "ship the invoice export" in block and "null vat id" not in block
    r = invoke("remember", "project/shop/x", "y", "--agent", "tester", exit_code=2)
    assert "session" in r.stderr
    invoke("remember", "project/shop/x", "y", "--session", "S1", "--agent", "no/slash", exit_code=2)
    shown = invoke("show", "project/shop/invoice-bug").stdout
    assert "namespace:   S1.agent-explorer" in shown
