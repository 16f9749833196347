"""A real Claude Code session with subagents (../shared sample
``-experiments-worktrees/ef958aa1…``, six subagent files): after import each
subagent has its own namespace, siblings cannot read each other, the parent
reads them demoted, each subagent has a summary with ``rollup_of`` edges to
its turns; a copy with one subagent's last lines cut leaves a "did not
complete" summary."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import shared_path

SID = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
QUERIES = ["plan mode", "teammates task coordination", "Beads issue tracker", "commit SHA branch",
           "round 2 comparison contrasts"]


def _sample() -> Path:
    return shared_path("data", "transcripts", "claude-code-log", "projects", "-experiments-worktrees")


def _summaries(store) -> dict:
    from objstore.memory.facts import current, list_keys
    out = {}
    for key, _head in list_keys(store):
        if "/summary/" in key:
            v = current(store, key)
            out[key.rsplit("/", 1)[1]] = v
    return out


def _edges(fact) -> tuple:
    from objstore.capture.rollup import rollup_edges
    return rollup_edges(fact)


@pytest.fixture
def imported(store):
    from objstore.capture.importer import import_transcripts
    src = _sample()
    import_transcripts(store, "claude-code", [src])
    subs = sorted((src / SID / "subagents").glob("agent-*.jsonl"))
    assert len(subs) >= 5
    return store, [f"{SID}.agent-{p.stem[len('agent-'):]}" for p in subs]


def test_each_subagent_has_its_namespace_and_a_summary_with_rollup_edges(imported):
    from objstore.memory.scope import namespace_rank, parent_namespace
    from objstore.memory.sessions import session_turns
    store, children = imported
    summaries = _summaries(store)
    for child in children:
        turns = session_turns(store, child)            # its own namespace: its turns' session
        assert turns and parent_namespace(child) == SID
        v = summaries[child]
        f = v.fact
        assert f.kind == "summary" and f.namespace == SID and f.trust == "agent_observed"
        assert not f.body.startswith("did not complete")
        assert f.body.strip() in turns[-1].turn.text     # its final message
        assert set(_edges(f)) == {tv.id for tv in turns}  # rollup_of: every turn it recorded
        for other in children:
            if other != child:
                assert namespace_rank(child, other) is None
    # importing again writes nothing new
    from objstore.capture.importer import import_transcripts
    import_transcripts(store, "claude-code", [_sample()], reread=True)
    assert {k: v.id for k, v in _summaries(store).items()} == {k: v.id for k, v in summaries.items()}


def test_siblings_cannot_read_each_other_and_the_parent_reads_them_demoted(imported):
    from objstore.retrieval.recall import recall
    store, children = imported
    seen_children = set()
    for child in children:
        siblings = set(children) - {child}
        for q in QUERIES:
            for h in recall(store, q, projects=None, namespace=child, limit=30).hits:
                ns = h.namespace
                assert not any(ns == s or ns.startswith(s + ".") for s in siblings), (child, q, h.key or h.session)
    for q in QUERIES:
        hits = recall(store, q, projects=None, namespace=SID, limit=30).hits
        seen_children |= {h.namespace for h in hits if h.namespace in children}
    assert len(seen_children) >= 3                      # the parent reads its subagents' turns
    # a subagent's conclusion (the summary, the parent's own) ranks above its raw final turn, same words
    compared = 0
    for child in children:
        final = _summaries(store)[child].fact.body
        q = " ".join(final.split()[:40])
        # (60: which raw turns reach the top 30 depends on the turn index's shard count, 1 for this import)
        hits = recall(store, q, projects=None, namespace=SID, limit=60).hits
        places = {("fact" if h.kind == "fact" else h.namespace): i for i, h in reversed(list(enumerate(hits)))
                  if h.kind == "fact" and h.key.endswith(child) or h.namespace == child}
        assert "fact" in places, child
        if child in places:
            compared += 1
            assert places["fact"] < places[child]
            by_kind = {h.kind if h.kind == "fact" else "turn": h for h in hits
                       if (h.kind == "fact" and h.key.endswith(child)) or h.namespace == child}
            assert by_kind["turn"].score < by_kind["fact"].score
    assert compared >= 1


def test_a_subagent_cut_short_leaves_a_did_not_complete_summary(store, tmp_path):
    from objstore.capture.importer import import_transcripts
    src = _sample()
    dst = tmp_path / "projects" / "-experiments-worktrees"
    shutil.copytree(src, dst)
    subs = sorted((dst / SID / "subagents").glob("agent-*.jsonl"))
    cut = subs[1]
    cut.chmod(0o644)
    lines = cut.read_bytes().splitlines(keepends=True)
    cut.write_bytes(b"".join(lines[:-3]))             # its final answer never written: killed mid-work
    import_transcripts(store, "claude-code", [dst])
    summaries = _summaries(store)
    child = f"{SID}.agent-{cut.stem[len('agent-'):]}"
    body = summaries[child].fact.body
    assert body.startswith("did not complete") and child in body
    assert _edges(summaries[child].fact)              # it still rolls up what the subagent did record
    done = [k for k, v in summaries.items() if not v.fact.body.startswith("did not complete")]
    assert len(done) == len(subs) - 1
    # the real final message, when it comes (SubagentStop), supersedes it; a later "did not complete" does not
    from objstore.capture.rollup import rollup
    assert rollup(store, child, "Finished: the plan mode notes are committed.").status == "written"
    assert rollup(store, child, None).status == "kept"
    assert _summaries(store)[child].fact.body == "Finished: the plan mode notes are committed."


def _final_text(path: Path) -> str:
    """The subagent's last assistant text, as Claude Code hands it to
    SubagentStop in ``last_assistant_message``."""
    import json
    last = ""
    for raw in path.read_bytes().splitlines():
        rec = json.loads(raw)
        if rec.get("type") != "assistant":
            continue
        parts = [b.get("text", "") for b in rec["message"].get("content", []) if b.get("type") == "text"]
        if any(p.strip() for p in parts):
            last = "\n".join(p for p in parts if p.strip())
    return last


def test_the_real_sample_through_the_hooks_matches_the_import(store_path, tmp_path):
    """The same session driven as Claude Code drives it (SessionStart,
    SubagentStart and SubagentStop per subagent, Stop, SessionEnd) gives each
    subagent its namespace and one summary with rollup_of edges to every turn;
    SubagentStart for one subagent holds none of its siblings' findings; a
    later import of the files writes no second summary."""
    import json
    from objstore.capture.importer import import_transcripts
    from objstore.memory.facts import remember, versions
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import session_turns
    from tests.hooks._util import payload, run_hook_done
    dst = tmp_path / "projects" / "-experiments-worktrees"
    shutil.copytree(_sample(), dst, copy_function=shutil.copyfile)   # written just now, as in a live session
    # (with the sample's own old mtimes every file looks idle and is read whole:
    # the path of a live session, a partial read of a finished subagent, went untested)
    main = dst / f"{SID}.jsonl"
    subs = sorted((dst / SID / "subagents").glob("agent-*.jsonl"))
    agents = [p.stem[len("agent-"):] for p in subs]
    children = [f"{SID}.agent-{a}" for a in agents]
    cwd = json.loads(main.read_bytes().splitlines()[0]).get("cwd") or str(tmp_path)
    with open_store(store_path, create=True) as s:    # a finding recorded by the first subagent
        remember(s, "user/finding-marker", "the sibling's marker finding zebrafish-17", namespace=children[0])

    def hook(event, **kw):
        rc, out, err, _t = run_hook_done(store_path, payload(event, SID, main, cwd=cwd, **kw))
        assert rc == 0, (event, err)
        return out

    hook("SessionStart", source="startup")
    for agent, sub in zip(agents, subs):
        out = hook("SubagentStart", agent_id=agent, agent_type="general-purpose")
        block = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""
        assert ("zebrafish-17" in block) == (agent == agents[0]), agent
        ev = dict(agent_id=agent, agent_type="general-purpose", agent_transcript_path=str(sub),
                  last_assistant_message=_final_text(sub), stop_hook_active=False)
        hook("SubagentStop", **ev)
        hook("SubagentStop", **ev)                     # delivered twice: still one summary
    hook("Stop", stop_hook_active=False)
    hook("SessionEnd", reason="exit")

    def state():
        """{child: (summary versions, its turn ids)}"""
        with open_store(store_path) as s:
            keys = [k for k, _head in _keys(s) if "/summary/" in k]
            return {child: ([v for k in keys if k.endswith("/" + child) for v in versions(s, k)],
                            [tv.id for tv in session_turns(s, child)]) for child in children}

    before = state()
    for child, sub in zip(children, subs):
        vs, turn_ids = before[child]
        assert turn_ids, child                         # its own namespace holds its turns
        assert len(vs) == 1, child
        f = vs[0].fact
        assert f.kind == "summary" and f.namespace == SID
        assert f.body.strip() == _final_text(sub).strip()
        assert set(_edges(f)) == set(turn_ids)
    with open_store(store_path) as s:
        import_transcripts(s, "claude-code", [dst], reread=True)
    after = state()
    assert {c: [v.id for v in vs] for c, (vs, _t) in after.items()} == \
        {c: [v.id for v in vs] for c, (vs, _t) in before.items()}


def _keys(store):
    from objstore.memory.facts import list_keys
    return list_keys(store)
