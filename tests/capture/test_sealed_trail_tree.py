"""trl23 (test22b Y2, Y7): the withheld trail of a sealed value is one per
session tree, in time order.  A sub-agent's ``mem sealed show K > F`` and then
the parent's ``cat F`` (or ``Read``, or ``~/F``) stored the value; a second
sub-agent reading the first one's file stored it in its turn and in its
roll-up ("did not complete … Its last turn"); a sub-agent still running read a
file its parent wrote after it started.  Real transcript files through
``mem import`` and real hook processes (SubagentStop, Stop)."""

from __future__ import annotations

from objstore.capture import claude_code
from objstore.capture.transcript import ParseStats
from objstore.capture.withhold import SECRET_OUTPUT
from tests.capture.test_sealed_output_capture import VALUE, _mem, _not_found, _texts
from tests.hooks._util import asst, hook_env, line, payload, run_hook_done, text, tool_result, tool_use, user

SID = "23232323-3333-4444-5555-666666666666"
SHOW = "mem sealed show user/bank/pin"
KEPT = "notes"


def _ts(sec: int) -> str:
    return f"2026-01-05T10:{sec // 60:02d}:{sec % 60:02d}Z"


def _calls(calls: list, at: int, prefix: str, **kw) -> list[dict]:
    """Records of ``calls`` ((tool, input, result) each) from second ``at``, 10 s apart."""
    recs = []
    for n, (name, inp, out) in enumerate(calls):
        t = at + 10 * n
        recs.append(asst(f"{prefix}a{n}", f"msg_{prefix}{n}", [tool_use(f"toolu_{prefix}{n}", name, **inp)], SID,
                         ts=_ts(t), **kw))
        recs.append(user(f"{prefix}r{n}", [tool_result(f"toolu_{prefix}{n}", out)], SID, ts=_ts(t + 1), **kw))
    return recs


def _write(path, recs: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line(r) for r in recs))


def _tree(tmp_path):
    """A session whose first sub-agent (A, seconds 65-90) writes the value to three files; the parent
    reads them after A returned (second 120 on); a second sub-agent (B, seconds 305-320) reads A's file
    and ends without a final message (its roll-up names its last turn); a third (C, seconds 405-440)
    runs in the background while the parent writes a file (second 420) that C reads after (second 430).
    Returns (main transcript, sub-agent files)."""
    proj = tmp_path / "-home-u-proj"
    main = proj / f"{SID}.jsonl"
    subs = {a: proj / SID / "subagents" / f"agent-{a}.jsonl" for a in ("aaaa1111", "bbbb2222", "cccc3333")}
    task = lambda p: ("Task", {"description": "pin", "prompt": p, "subagent_type": "general-purpose"}, "Done.")
    _write(main, [user("u0", "look after my pin", SID, ts=_ts(0))]
           + _calls([task("write the pin to files")], 60, "p")
           + _calls([("Bash", {"command": "cat /tmp/x/pin.txt"}, VALUE),
                     ("Read", {"file_path": "/tmp/x/pin.txt"}, VALUE),
                     ("Read", {"file_path": "/home/u/pin.txt"}, VALUE),
                     ("Bash", {"command": "cat pin2.txt"}, VALUE),
                     ("Bash", {"command": "cat /tmp/x/other.txt"}, KEPT)], 120, "q")
           + _calls([task("read the pin file")], 300, "s")
           + _calls([("Task", {"description": "bg", "prompt": "wait then read", "run_in_background": True,
                               "subagent_type": "general-purpose"}, "Started.")], 400, "t")
           + [asst("pz", "msg_pz", [tool_use("toolu_pz", command=f"{SHOW} > /tmp/late/pin.txt")], SID, ts=_ts(420)),
              user("pzr", [tool_result("toolu_pz", "")], SID, ts=_ts(421)),
              asst("pe", "msg_pe", [text("Done.")], SID, ts=_ts(500))])
    side = lambda a: {"isSidechain": True, "agentId": a}
    _write(subs["aaaa1111"], [user("A0", "write the pin to files", SID, ts=_ts(62), **side("aaaa1111"))]
           + _calls([("Bash", {"command": f"{SHOW} > /tmp/x/pin.txt && cp /tmp/x/pin.txt ~/pin.txt"}, ""),
                     ("Bash", {"command": f"cd /home/u/proj && {SHOW} > pin2.txt"}, "")], 65, "A", **side("aaaa1111"))
           + [asst("Az", "msg_Az", [text("Written.")], SID, ts=_ts(90), **side("aaaa1111"))])
    _write(subs["bbbb2222"], [user("B0", "read the pin file", SID, ts=_ts(302), **side("bbbb2222"))]
           + _calls([("Bash", {"command": "ls /tmp"}, KEPT),
                     ("Bash", {"command": "cat /tmp/x/pin.txt"}, VALUE)], 305, "B", **side("bbbb2222")))
    _write(subs["cccc3333"], [user("C0", "wait then read", SID, ts=_ts(402), **side("cccc3333"))]
           + _calls([("Bash", {"command": "cat /tmp/late/pin.txt"}, KEPT)], 405, "C", **side("cccc3333"))
           + _calls([("Bash", {"command": "sleep 20"}, ""),
                     ("Bash", {"command": "cat /tmp/late/pin.txt"}, VALUE)], 425, "D", **side("cccc3333"))
           + [asst("Cz", "msg_Cz", [text("Read it.")], SID, ts=_ts(440), **side("cccc3333"))])
    return main, subs


def _summaries(store) -> list[str]:
    """The bodies of the store's roll-up summaries."""
    from objstore.memory.facts import list_keys, versions
    from objstore.memory.opening import open_store
    with open_store(store) as s:
        return [v.fact.body for k, _h in list_keys(s) if "/summary/" in k for v in versions(s, k)]


def _check(store) -> None:
    _not_found(store)
    tools = [x for r, x in _texts(store) if r == "tool"]
    # A's two writes, the parent's four reads and its late write, B's read, C's late read
    assert tools.count(SECRET_OUTPUT) == 9, tools
    assert tools.count(KEPT) == 3, tools            # the parent's other file, B's ls, C's read before the write
    bodies = _summaries(store)
    assert bodies and not any(VALUE in b for b in bodies), bodies
    assert any(b.startswith("did not complete") and SECRET_OUTPUT in b for b in bodies), bodies   # B's


def test_the_trail_crosses_sub_agents_both_ways_on_import(tmp_path):
    """Y2, Y7: ``mem import`` of the tree."""
    main, _subs = _tree(tmp_path)
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(main.parent))
    _check(store)


def test_each_file_read_alone_reads_the_tree(tmp_path):
    """The parent read alone (a Stop hook's cursor read) and a sub-agent read alone take the
    other files' trail, each entry from its time on."""
    main, subs = _tree(tmp_path)
    alone = [ct.text for ct in claude_code.parse_file(main, ParseStats(), state=claude_code.ReaderState())]
    assert alone.count(SECRET_OUTPUT) == 5 and alone.count(KEPT) == 1 and VALUE not in "".join(alone), alone
    b = [ct.text for ct in claude_code.parse_file(subs["bbbb2222"], ParseStats(), state=claude_code.ReaderState())]
    assert b.count(SECRET_OUTPUT) == 1 and b.count(KEPT) == 1, b
    c = [ct.text for ct in claude_code.parse_file(subs["cccc3333"], ParseStats())]
    assert c.count(SECRET_OUTPUT) == 1 and c.count(KEPT) == 1, c


def test_the_hooks_withhold_across_the_tree(tmp_path):
    """Y2 through real hook processes, as Claude Code drives them: each sub-agent's
    SubagentStop, then the parent's Stop; B's roll-up (it ended without a final message)
    does not name the value either."""
    main, subs = _tree(tmp_path)
    store = tmp_path / "store"
    for agent, sub in subs.items():
        ev = dict(agent_id=agent, agent_type="general-purpose", agent_transcript_path=str(sub),
                  stop_hook_active=False)
        rc, _out, err, _dt = run_hook_done(store, payload("SubagentStop", SID, main, **ev), env=hook_env(store))
        assert rc == 0, err
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, main, stop_hook_active=False), env=hook_env(store))
    assert rc == 0, err
    rc, _out, err, _dt = run_hook_done(store, payload("SessionEnd", SID, main, reason="exit"), env=hook_env(store))
    assert rc == 0, err
    _check(store)
