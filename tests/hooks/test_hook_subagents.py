"""Sub-agents in the hook path, driven by hand through a real ``mem hook
claude-code`` process: SubagentStart injects the ancestors' facts and none
of a sibling's; SubagentStop writes the summary once, even when repeated,
with rollup_of edges to the subagent's turns; a subagent that stops without
a final message leaves a "did not complete" summary."""

from __future__ import annotations

import json

from tests.hooks._util import asst, line, payload, run_hook, run_hook_done, text, tool_result, tool_use, user

S = "5e55a0e1-0000-4000-8000-000000000001"


def _facts(store_path):
    from objstore.memory.facts import remember
    from objstore.memory.opening import open_store
    from objstore.memory.scope import child_namespace
    with open_store(store_path, create=True) as s:
        remember(s, "project/proj/db", "the database is postgres 16 on port 5433")           # no namespace
        remember(s, "project/proj/goal", "the parent is migrating auth to oauth", namespace=S)
        remember(s, "project/proj/sibling-find", "sibling alpha found the token cache leak",
                 namespace=child_namespace(S, "aalpha01"))
        remember(s, "project/proj/nephew", "alpha's helper saw the retry storm",
                 namespace=child_namespace(child_namespace(S, "aalpha01"), "helper"))


def _transcripts(tmp_path, agent: str, final: str | None):
    main = tmp_path / "projects" / "-home-u-proj" / f"{S}.jsonl"
    sub = main.with_suffix("") / "subagents" / f"agent-{agent}.jsonl"
    sub.parent.mkdir(parents=True)
    main.write_bytes(line(user("u1", "split the auth migration between two agents", sid=S)))
    recs = [user("b1", "check the oauth callback handler", sid=S, isSidechain=True, agentId=agent),
            asst("b2", "msg_b2", [tool_use("t1", command="grep -rn callback src/")], sid=S,
                 isSidechain=True, agentId=agent),
            user("b3", [tool_result("t1", "src/auth/callback.py:12: def callback(request):")], sid=S,
                 isSidechain=True, agentId=agent)]
    if final:
        recs.append(asst("b4", "msg_b4", [text(final)], sid=S, isSidechain=True, agentId=agent))
    sub.write_bytes(b"".join(line(r) for r in recs))
    return main, sub


def _summary(store_path, agent):
    from objstore.capture.rollup import summary_key
    from objstore.memory.facts import versions
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import session_turns
    child = f"{S}.agent-{agent}"
    with open_store(store_path) as s:
        return versions(s, summary_key(child, "proj")), [tv.id for tv in session_turns(s, child)]


def test_subagent_start_holds_the_ancestors_facts_and_none_of_a_siblings(store_path):
    _facts(store_path)
    rc, out, err, _t = run_hook_done(store_path, payload("SubagentStart", S, None, agent_id="abeta002",
                                                         agent_type="general-purpose"))
    assert rc == 0, err
    ctx = json.loads(out)["hookSpecificOutput"]
    assert ctx["hookEventName"] == "SubagentStart"
    block = ctx["additionalContext"]
    assert "postgres 16 on port 5433" in block and "migrating auth to oauth" in block
    assert "token cache leak" not in block and "retry storm" not in block
    # the sibling itself reads its own finding (and the same ancestors)
    rc, out, err, _t = run_hook_done(store_path, payload("SubagentStart", S, None, agent_id="aalpha01"))
    block = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "token cache leak" in block and "migrating auth to oauth" in block
    # the parent's session block reads its subtree, its own facts first
    from objstore.memory.opening import open_store
    from objstore.retrieval.context import render_context
    with open_store(store_path) as s:
        parent = render_context(s, ("proj",), namespace=S).text
    assert parent.index("migrating auth") < parent.index("token cache leak") < parent.index("retry storm")


def test_subagent_stop_writes_the_rollup_once_even_when_repeated(store_path, tmp_path):
    final = "The callback handler in src/auth/callback.py needs the new oauth state check."
    main, sub = _transcripts(tmp_path, "abeta002", final)
    ev = payload("SubagentStop", S, main, agent_id="abeta002", agent_type="general-purpose",
                 agent_transcript_path=str(sub), last_assistant_message=final, stop_hook_active=False)
    for _ in range(3):
        rc, out, err, _t = run_hook(store_path, ev)
        assert rc == 0 and out == "", err
    vs, turn_ids = _summary(store_path, "abeta002")
    assert len(vs) == 1                                   # once
    f = vs[0].fact
    assert f.body == final and f.kind == "summary" and f.namespace == S
    assert turn_ids and set(f.edges_of("rollup_of")) == set(turn_ids)
    # the Stop of the parent that follows writes nothing more either
    rc, _o, err, _t = run_hook_done(store_path, payload("Stop", S, main, stop_hook_active=False))
    assert rc == 0 and len(_summary(store_path, "abeta002")[0]) == 1


def test_subagent_stop_without_a_final_message_leaves_did_not_complete(store_path, tmp_path):
    main, sub = _transcripts(tmp_path, "agamma03", None)
    ev = payload("SubagentStop", S, main, agent_id="agamma03", agent_transcript_path=str(sub),
                 last_assistant_message="", stop_hook_active=False)
    rc, _o, err, _t = run_hook_done(store_path, ev)
    assert rc == 0, err
    vs, turn_ids = _summary(store_path, "agamma03")
    body = vs[0].fact.body
    assert body.startswith("did not complete") and f"{S}.agent-agamma03" in body and "3 turns" in body
    assert set(vs[0].fact.edges_of("rollup_of")) == set(turn_ids)


def test_a_subagent_killed_midway_is_noticed_at_the_parents_stop(store_path, tmp_path):
    """No SubagentStop ever came (a kill): the parent's Stop finds the subagent's
    transcript idle without a final message and leaves "did not complete"; one
    still being written is left alone."""
    import os
    import time
    main, sub = _transcripts(tmp_path, "adelta04", None)
    rc, _o, err, _t = run_hook_done(store_path, payload("Stop", S, main, stop_hook_active=False))
    assert rc == 0, err
    from objstore.capture.rollup import summary_key
    from objstore.memory.facts import list_keys
    from objstore.memory.opening import open_store
    with open_store(store_path) as s:        # written a moment ago: it may still be running
        assert summary_key(f"{S}.agent-adelta04", "proj") not in {k for k, _ in list_keys(s)}
    with open(sub, "ab") as f:               # one more record, then nothing for two minutes
        f.write(line(asst("b5", "msg_b5", [tool_use("t2", command="pytest -x")], sid=S, isSidechain=True,
                          agentId="adelta04")))
    old = time.time() - 120
    os.utime(sub, (old, old))
    rc, _o, err, _t = run_hook_done(store_path, payload("Stop", S, main, stop_hook_active=False))
    assert rc == 0, err
    vs, turn_ids = _summary(store_path, "adelta04")
    assert vs[0].fact.body.startswith("did not complete") and len(turn_ids) == 4


def test_a_subagent_killed_with_its_session_is_rolled_up_at_the_next_catch_up(store_path, tmp_path):
    """The parent's Stop read the subagent's transcript while it still ran;
    then everything was killed (no SubagentStop, no SessionEnd).  The next
    session's catch-up finds it idle and unended: "did not complete"."""
    import os
    import time
    main, sub = _transcripts(tmp_path, "aeps0005", None)
    run_hook(store_path, payload("Stop", S, main, stop_hook_active=False))
    old = time.time() - 300
    for p in (main, sub):
        os.utime(p, (old, old))
    from objstore.capture.sync import catch_up
    from objstore.memory.opening import open_store
    with open_store(store_path) as s:
        catch_up(s, idle_s=120)
    vs, turn_ids = _summary(store_path, "aeps0005")
    assert vs[0].fact.body.startswith("did not complete") and len(turn_ids) == 3
    with open_store(store_path) as s:        # and once only
        catch_up(s, idle_s=120)
    assert len(_summary(store_path, "aeps0005")[0]) == 1
