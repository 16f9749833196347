"""test32 X6: ``mem forget --session <sub-agent>`` left the sub-agent's
final report in the parent session's tool-result turn (Claude Code hands
the sub-agent's last message back to the parent as the Task result):
searchable, recalled, and not named by the forget.  That turn now goes with
the sub-agent, named in the preview; the parent's other turns stay."""

from __future__ import annotations

from objstore import scan_store

PARENT = "5f0c1d2e-aaaa-4bbb-8ccc-0123456789ab"
SUB = f"{PARENT}.agent-a52886dc"
REPORT = ("Report: the staging credentials live in zanzibar-walrus.env under the deploy folder; "
          "I read the file and copied the token into the notes.")


def _turns(store, sid: str, rows: list[tuple[str, str]], tag: str) -> list[str]:
    from objstore.memory.appender import TurnAppender
    from objstore.memory.sessions import CapturedTurn
    app = TurnAppender(store, command="test")
    with store.lock("test"):
        ids = [app.add(CapturedTurn(session=sid, source=f"t:{tag}:{i}", role=role, text=text,
                                    timestamp=1_772_000_000_000 + i, cwd="", project="p"))
               for i, (role, text) in enumerate(rows)]
        app.publish()
    app.close()
    return ids


def test_forget_subagent_takes_its_report_from_the_parent(store, store_path, invoke):
    _turns(store, PARENT, [("user", "find where the staging credentials are kept"),
                           ("assistant", "I will ask a sub-agent to look."),
                           ("tool", f"[tool_result Task] {REPORT}\nagentId: a52886dc"),
                           ("assistant", "The sub-agent found the file; rotate that token soon.")], "p")
    _turns(store, SUB, [("user", "find where the staging credentials are kept"),
                        ("assistant", "searching the deploy folder"),
                        ("assistant", REPORT)], "s")
    assert "zanzibar" in invoke("search", "zanzibar").stdout
    out = invoke("forget", "--session", SUB, "--yes").stdout
    assert f"turn {PARENT} #2 tool" in out, out          # the preview names the parent's turn
    assert "zanzibar" not in invoke("search", "zanzibar").stdout
    assert "rotate that token" in invoke("search", "rotate token").stdout   # the parent's other turns stay
    invoke("gc", "--prune=now")
    assert scan_store(store_path, [b"zanzibar-walrus"]) == []


def test_a_short_report_takes_nothing_from_the_parent(store, store_path, invoke):
    """A report too short to tell from a common tool result ("Done.") leaves the parent as it is."""
    _turns(store, PARENT, [("user", "tidy up"), ("tool", "Done."), ("assistant", "ok")], "p")
    _turns(store, SUB, [("user", "tidy up"), ("assistant", "Done.")], "s")
    out = invoke("forget", "--session", SUB, "--yes").stdout
    assert f"turn {PARENT}" not in out, out
    from objstore.core.refs import session_ref
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import walk_turns
    s = open_store(store_path)
    try:
        texts = [tv.turn.text for tv in walk_turns(s, s.refs.read(session_ref(PARENT)))]
    finally:
        s.close()
    assert texts == ["ok", "Done.", "tidy up"]
