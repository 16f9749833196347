"""A sub-agent started while answering a ``#nomem`` prompt is not captured
(test17 T9; docs/hooks.md "Exclusions": the prompt "and the answer to it
(up to the next prompt) are not captured, by the hook or by any later read
of the transcript"): no turn of it, no summary fact, through ``mem import``
and through the hooks, for both sub-agent file layouts; a sub-agent the
next, ordinary prompt starts is captured as before.  Real transcript files,
real ``mem`` processes."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.hooks._util import REPO, asst, hook_env, line, payload, run_hook_done, text, tool_result, tool_use, user

SID = "11111111-2222-3333-4444-555555555555"
SECRET = "tapir-violet-93"
TASK = f"check that the staging code {SECRET} works"
OK_TASK = "list the files of the repo"


def _sub(agent: str, prompt: str, answer: str) -> bytes:
    """A sub-agent's transcript: its task, its final answer."""
    kw = {"agentId": agent, "isSidechain": True}
    done = asst(f"t{agent}", f"m{agent}", [text(answer)], SID, **kw)
    done["message"]["stop_reason"] = "end_turn"
    return line(user(f"s{agent}", prompt, SID, **kw)) + line(done)


def _main(upto: int = 3) -> bytes:
    """The parent: a #nomem prompt whose answer starts agent A (by task), then
    an ordinary prompt whose answer starts agent B."""
    recs = [
        user("u1", f"#nomem the staging code is {SECRET}, use an agent to check it", SID),
        asst("a1", "m1", [tool_use("toolu_1", "Agent", description="check", prompt=TASK)], SID),
        user("r1", [tool_result("toolu_1", f"verified: {SECRET} works")], SID,
             toolUseResult={"agentId": "aaaa1111", "content": "ok"}),
        asst("a2", "m2", [text(f"The code {SECRET} is confirmed.")], SID),
        user("u2", "now list the files", SID),
        asst("a3", "m3", [tool_use("toolu_2", "Task", description="ls", prompt=OK_TASK)], SID),
        user("r2", [tool_result("toolu_2", "README.md")], SID),
        asst("a4", "m4", [text("There is a README.")], SID),
    ]
    cut = {1: 2, 2: 4, 3: len(recs)}[upto]
    return b"".join(line(r) for r in recs[:cut])


def _mem(store, *args, ok=(0,)):
    p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True,
                       env=hook_env(store), cwd=REPO, timeout=120)
    assert p.returncode in ok, p.stderr
    return p


def _layout(home, new_layout: bool):
    d = home / ".claude" / "projects" / "-home-u-proj"
    sub_dir = d / SID / "subagents" if new_layout else d
    sub_dir.mkdir(parents=True)
    return d / f"{SID}.jsonl", sub_dir / "agent-aaaa1111.jsonl", sub_dir / "agent-bbbb2222.jsonl"


def _stored(store) -> tuple[list[str], str]:
    """(the places ``mem scan`` finds the excluded text in, but the
    transcripts themselves; ``mem keys``)."""
    scan = _mem(store, "scan", SECRET, ok=(0, 1)).stdout
    keys = _mem(store, "keys").stdout
    return [ln for ln in scan.splitlines() if ln.strip() and not ln.startswith("transcript")], keys


def test_import_leaves_out_a_subagent_of_a_nomem_answer_in_both_layouts(tmp_path):
    for new_layout in (True, False):
        home, store = tmp_path / f"h{new_layout}", tmp_path / f"s{new_layout}"
        main, sub_a, sub_b = _layout(home, new_layout)
        main.write_bytes(_main())
        # 2.0.x: no meta file, the agent is named by the call's result; >= 2.1.2: by its task
        sub_a.write_bytes(_sub("aaaa1111", TASK if new_layout else "a reworded task", f"verified: {SECRET} works"))
        sub_b.write_bytes(_sub("bbbb2222", OK_TASK, "README.md is there"))
        _mem(store, "import", "claude-code", str(home / ".claude" / "projects"))
        objects, keys = _stored(store)
        assert objects == [], objects
        assert "agent-aaaa1111" not in keys and "agent-bbbb2222" in keys, keys   # B's summary: captured
        shown = _mem(store, "show", f"{SID}.agent-bbbb2222").stdout
        assert OK_TASK in shown
        # importing again (the files changed: read again) keeps A out
        with open(sub_a, "ab") as f:
            f.write(line(user("later", "one more", SID, agentId="aaaa1111", isSidechain=True)))
        _mem(store, "import", "claude-code", str(home / ".claude" / "projects"))
        assert _stored(store)[0] == [] and "one more" not in _mem(store, "search", "one more").stdout


def test_hooks_leave_out_a_subagent_of_a_nomem_answer(tmp_path):
    home, store = tmp_path / "home", tmp_path / "store"
    main, sub_a, _sub_b = _layout(home, True)
    sub_a.with_name("agent-aaaa1111.meta.json").write_text(json.dumps({"agentType": "general-purpose",
                                                                        "toolUseId": "toolu_1"}))

    def hook(event, **kw):
        rc, out, err, _s = run_hook_done(store, payload(event, SID, main, **kw))
        assert rc == 0, err
        return out

    _mem(store, "init")
    hook("SessionStart", source="startup")
    hook("UserPromptSubmit", prompt=f"#nomem the staging code is {SECRET}, use an agent to check it")
    main.write_bytes(_main(1))
    hook("SubagentStart", agent_id="aaaa1111", agent_type="general-purpose")
    sub_a.write_bytes(_sub("aaaa1111", "the task, reworded by the agent", f"verified: {SECRET} works"))
    hook("SubagentStop", agent_id="aaaa1111", agent_transcript_path=str(sub_a),
         last_assistant_message=f"verified: {SECRET} works")
    main.write_bytes(_main(2))
    hook("Stop", last_assistant_message=f"The code {SECRET} is confirmed.")
    main.write_bytes(_main(3))
    hook("SessionEnd", reason="exit")
    objects, keys = _stored(store)
    assert objects == [], objects
    assert "agent-aaaa1111" not in keys
    assert "now list the files" in _mem(store, "show", SID).stdout   # the session itself is captured
    # a later prompt does not get the excluded summary injected
    out = hook("UserPromptSubmit", prompt="what did the agent verify about the staging code?")
    assert SECRET not in out


# red18: a sub-agent started by a sub-agent of a #nomem answer (and one below that) is part of the same answer
NESTED_TASK = f"double-check the code {SECRET} on the replica"
DEEP_TASK = "ask the replica once more"


def _sub_calling(agent: str, prompt: str, call_id: str, task: str, child: str, answer: str,
                 result: str = f"replica says {SECRET} works") -> bytes:
    """A sub-agent's transcript in which it starts sub-agent ``child`` with ``task`` (its result
    ``result``), then answers."""
    kw = {"agentId": agent, "isSidechain": True}
    done = asst(f"t{agent}", f"m{agent}2", [text(answer)], SID, **kw)
    done["message"]["stop_reason"] = "end_turn"
    return b"".join(line(r) for r in (
        user(f"s{agent}", prompt, SID, **kw),
        asst(f"c{agent}", f"m{agent}1", [tool_use(call_id, "Task", description="nested", prompt=task)], SID, **kw),
        user(f"r{agent}", [tool_result(call_id, result)], SID,
             toolUseResult={"agentId": child, "content": "ok"}, **kw),
        done))


def _nested_files(sub_dir, new_layout: bool):
    """A (the #nomem answer's agent) starts C, C starts D; B (an ordinary prompt's agent) starts E."""
    a = sub_dir / "agent-aaaa1111.jsonl"
    a.write_bytes(_sub_calling("aaaa1111", TASK if new_layout else "a reworded task", "toolu_a1", NESTED_TASK,
                               "cccc3333", f"verified: {SECRET} works"))
    # 2.1.x: C is named by its task; 2.0.x: by the agent id of A's call result (its task reworded)
    (sub_dir / "agent-cccc3333.jsonl").write_bytes(_sub_calling(
        "cccc3333", NESTED_TASK if new_layout else "the replica check", "toolu_c1", DEEP_TASK, "dddd4444",
        f"the replica has {SECRET}"))
    (sub_dir / "agent-dddd4444.jsonl").write_bytes(_sub("dddd4444", "once more, reworded", f"yes, {SECRET}"))
    (sub_dir / "agent-bbbb2222.jsonl").write_bytes(_sub_calling("bbbb2222", OK_TASK, "toolu_b1", "count them",
                                                                "eeee5555", "README.md is there", "1 file"))
    (sub_dir / "agent-eeee5555.jsonl").write_bytes(_sub("eeee5555", "count them", "one file"))
    if new_layout:
        (sub_dir / "agent-dddd4444.meta.json").write_text(json.dumps({"toolUseId": "toolu_c1"}))


def test_import_leaves_out_the_nested_subagents_of_a_nomem_answer(tmp_path):
    for new_layout in (True, False):
        home, store = tmp_path / f"h{new_layout}", tmp_path / f"s{new_layout}"
        main, sub_a, _sub_b = _layout(home, new_layout)
        main.write_bytes(_main())
        _nested_files(sub_a.parent, new_layout)
        _mem(store, "import", "claude-code", str(home / ".claude" / "projects"))
        objects, keys = _stored(store)
        assert objects == [], objects
        for agent in ("aaaa1111", "cccc3333", "dddd4444"):
            assert f"agent-{agent}" not in keys, (agent, keys)
        assert "agent-bbbb2222" in keys and "agent-eeee5555" in keys, keys    # the ordinary chain: captured


def test_hooks_leave_out_a_nested_subagent_of_a_nomem_answer(tmp_path):
    home, store = tmp_path / "home", tmp_path / "store"
    main, sub_a, _sub_b = _layout(home, True)
    _mem(store, "init")

    def hook(event, **kw):
        rc, _out, err, _s = run_hook_done(store, payload(event, SID, main, **kw))
        assert rc == 0, err

    hook("SessionStart", source="startup")
    main.write_bytes(_main(2))
    _nested_files(sub_a.parent, True)
    for agent in ("dddd4444", "cccc3333", "aaaa1111"):       # the innermost stops first
        hook("SubagentStop", agent_id=agent, agent_transcript_path=str(sub_a.parent / f"agent-{agent}.jsonl"),
             last_assistant_message=f"the replica has {SECRET}")
    main.write_bytes(_main(3))
    hook("Stop", last_assistant_message="There is a README.")
    hook("SessionEnd", reason="exit")
    objects, keys = _stored(store)
    assert objects == [], objects
    assert not any(f"agent-{a}" in keys for a in ("aaaa1111", "cccc3333", "dddd4444")), keys
