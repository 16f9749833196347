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


def test_a_sub_agent_never_reads_a_sibling_by_from_agent_nor_get(invoke, monkeypatch):
    """test29 P3: ``--from-agent`` naming a sibling answers as a missing
    sub-agent when ``--agent`` is given (the parent's use stays), and ``get``
    of a key only a sibling wrote reads as a key that does not exist."""
    monkeypatch.setenv("MEM_PROJECT", "shop")
    invoke("remember", "project/shop/cache", "redis 6 on cache-1")
    invoke("remember", "project/shop/cache", "redis 7 on cache-a1", "--session", "S1", "--agent", "alpha")
    invoke("remember", "project/shop/cache", "memcached on cache-b2", "--session", "S1", "--agent", "beta")
    invoke("remember", "project/shop/secretplan", "alpha-only: quokka-delta-88", "--session", "S1", "--agent", "alpha")
    for q in ("quokka plan", "shop cache"):
        r = invoke("recall", q, "--session", "S1", "--agent", "beta", "--from-agent", "alpha", exit_code=4)
        assert "quokka" not in r.stdout + r.stderr and "cache-a1" not in r.stdout + r.stderr
        assert "no sub-agent alpha" in r.stderr and "S1.agent-" not in r.stderr
    # the parent, and the person, still read alpha's alone
    hits = invoke("recall", "quokka plan", "--session", "S1", "--from-agent", "alpha", "--json").json["hits"]
    assert [h["key"] for h in hits if h.get("kind") == "fact"] == ["project/shop/secretplan"]
    # a sub-agent reads its own subtree with --from-agent
    invoke("remember", "project/shop/deep", "gamma found quokka tracks", "--session", "S1.agent-beta",
           "--agent", "gamma")
    own = invoke("recall", "quokka", "--session", "S1", "--agent", "beta", "--from-agent", "gamma", "--json").json
    assert [h["key"] for h in own["hits"] if h.get("kind") == "fact"] == ["project/shop/deep"]
    # get: a sibling's key reads as no key at all; a shared key gives beta its own value
    sib = invoke("get", "project/shop/secretplan", "--session", "S1", "--agent", "beta", exit_code=4)
    none = invoke("get", "project/shop/nokey", "--session", "S1", "--agent", "beta", exit_code=4)
    assert sib.stderr.replace("secretplan", "K") == none.stderr.replace("nokey", "K")
    assert invoke("get", "project/shop/cache", "--session", "S1", "--agent", "beta").stdout.strip() == \
        "memcached on cache-b2"
    assert invoke("get", "project/shop/secretplan", "--session", "S1").stdout.strip() == "alpha-only: quokka-delta-88"


def test_an_empty_agent_name_is_refused_never_read_as_no_filter(invoke, monkeypatch):
    """``--from-agent ""`` (and ``--agent ""``) is a bad name (exit 2), not
    "no filter": a script passing an unset variable would otherwise get every
    sub-agent's memory as if it were the one asked for (test30 lead)."""
    monkeypatch.setenv("MEM_PROJECT", "shop")
    invoke("remember", "project/shop/cache", "redis 7 on cache-a1", "--session", "S1", "--agent", "alpha")
    invoke("remember", "project/shop/queue", "rabbitmq on queue-b2", "--session", "S1", "--agent", "beta")
    for args in (("--from-agent", ""), ("--session", "S1", "--from-agent", ""), ("--session", "S1", "--agent", "")):
        r = invoke("recall", "cache queue", *args, exit_code=2)
        assert "bad agent name" in r.stderr and "cache-a1" not in r.stdout and "queue-b2" not in r.stdout
    invoke("get", "project/shop/cache", "--session", "S1", "--agent", "", exit_code=2)
    invoke("context", "--session", "S1", "--agent", "", exit_code=2)
    # the named filter still reads alpha's alone
    hits = invoke("recall", "cache queue", "--from-agent", "alpha", "--json").json["hits"]
    assert [h["key"] for h in hits if h.get("kind") == "fact"] == ["project/shop/cache"]
