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


def test_plain_recall_names_the_namespace(mem, store):
    """``mem recall`` (text, a real process) names a fact's and a sub-agent
    turn's namespace, as --json does."""
    from objstore.memory.appender import TurnAppender
    from objstore.memory.sessions import CapturedTurn
    app = TurnAppender(store, command="test")
    with store.lock("test"):
        for sid in ("S1", "S1.agent-explorer"):
            app.add(CapturedTurn(session=sid, source=f"t:{sid}", role="assistant", cwd="", project="shop",
                                 text=f"the invoice export drops rows ({sid})", timestamp=1_772_000_000_000))
        app.publish()
    app.close()
    store.close()
    mem("remember", "project/shop/invoice-bug", "the invoice export drops rows with a null vat id",
        "--session", "S1", "--agent", "explorer")
    mem("remember", "project/shop/goal", "ship the invoice export by friday", "--session", "0f1e2d3c-long-session-id")
    out = mem("recall", "invoice export", "--project", "shop").stdout.splitlines()
    heads = {ln.split()[1]: ln for ln in out if ln.startswith(("fact ", "turn "))}
    assert heads["project/shop/invoice-bug"].endswith("  agent explorer (session S1)")
    assert heads["project/shop/goal"].endswith("  session 0f1e2d3c")
    assert heads["S1.agent-explorer#0"].endswith("  agent explorer")
    assert heads["S1#0"].endswith("agent_observed  " + heads["S1#0"].split()[-1])  # its own turn: the id says it
