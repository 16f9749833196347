"""test23b V3: a sub-agent that printed a sealed value (``mem sealed show K | tee F``,
withheld) and says it again in its final message ("The pin is …") leaves a roll-up
summary that does not hold it: the value is ``[REDACTED:sealed-value]`` there, as in its
withheld results, so the prompt hook never serves it to another session.  Real
transcript files (2.0.x layout and subagents/ layout) through ``mem import`` and real
SubagentStop / UserPromptSubmit hook processes."""

from __future__ import annotations

import pytest

from objstore.capture.withhold import SECRET_OUTPUT, redact_printed
from tests.capture.test_sealed_output_capture import VALUE, _mem
from tests.capture.test_sealed_trail_tree import SHOW, SID, _calls, _summaries, _ts, _write
from tests.hooks._util import asst, hook_env, payload, run_hook, run_hook_done, text, user

AGENT = "dddd4444"
FINAL = f"The pin is {VALUE}, saved to /tmp/y/pin.txt."


def _tree(tmp_path, legacy: bool):
    """A session whose sub-agent shows the sealed pin through ``tee`` and repeats it in its
    final message.  Returns (main transcript, sub-agent file)."""
    proj = tmp_path / "-home-u-proj"
    main = proj / f"{SID}.jsonl"
    task = ("Task", {"description": "pin", "prompt": "get the pin", "subagent_type": "general-purpose"}, "Done.")
    _write(main, [user("u0", "look after my pin", SID, ts=_ts(0))] + _calls([task], 60, "p")
           + [asst("pe", "msg_pe", [text("Done.")], SID, ts=_ts(500))])
    sub = proj / (f"agent-{AGENT}.jsonl" if legacy else f"{SID}/subagents/agent-{AGENT}.jsonl")
    side = {"isSidechain": True, "agentId": AGENT}
    _write(sub, [user("A0", "get the pin", SID, ts=_ts(62), **side)]
           + _calls([("Bash", {"command": f"mkdir -p /tmp/y && {SHOW} | tee /tmp/y/pin.txt"}, VALUE + "\n")],
                    65, "A", **side)
           + [asst("Az", "msg_Az", [text(FINAL)], SID, ts=_ts(90), **side)])
    return main, sub


def _turn_texts(store) -> list[str]:
    """The text of every turn stored, in every session (the sub-agent's own included)."""
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import walk_turns
    with open_store(store) as s:
        return [tv.turn.text for _n, head in s.refs.iter("sessions") for tv in walk_turns(s, head)]


def _check(store) -> None:
    # (mend24) the sub-agent's own final turn repeats the value too: stored withheld as the summary is
    texts = _turn_texts(store)
    assert any(f"The pin is {SECRET_OUTPUT}, saved to" in t for t in texts), texts
    assert not any(VALUE in t for t in texts), texts
    from objstore import scan_store
    assert not scan_store(store, [VALUE.encode()])
    bodies = _summaries(store)
    assert bodies and not any(VALUE in b for b in bodies), bodies
    assert any(f"The pin is {SECRET_OUTPUT}, saved to" in b for b in bodies), bodies
    rc, out, err, _dt = run_hook(store, payload("UserPromptSubmit", SID + "-later", None, cwd="/home/u/proj",
                                                prompt="what is the pin saved in pin.txt?"), env=hook_env(store))
    assert rc == 0, err
    assert VALUE not in out, out


@pytest.mark.parametrize("legacy", [True, False])
def test_import_redacts_the_value_in_the_rollup(tmp_path, legacy):
    main, _sub = _tree(tmp_path, legacy)
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(main.parent))
    _check(store)


@pytest.mark.parametrize("legacy,subagent_stop", [(True, True), (False, True), (False, False)])
def test_subagent_stop_hook_redacts_the_value(tmp_path, legacy, subagent_stop):
    """The SubagentStop hook's ``last_assistant_message`` repeats the value; then Stop.  Without
    a SubagentStop (an older Claude Code), the parent's Stop hook rolls the ended file up."""
    main, sub = _tree(tmp_path, legacy)
    store = tmp_path / "store"
    ev = dict(agent_id=AGENT, agent_type="general-purpose", agent_transcript_path=str(sub),
              stop_hook_active=False, last_assistant_message=FINAL)
    if subagent_stop:
        rc, _out, err, _dt = run_hook_done(store, payload("SubagentStop", SID, main, **ev), env=hook_env(store))
        assert rc == 0, err
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, main, stop_hook_active=False), env=hook_env(store))
    assert rc == 0, err
    _check(store)


def test_a_summary_without_a_printed_value_is_kept_whole():
    """Only the withheld results' values go: the rest of the text stays."""
    assert redact_printed(FINAL, ()) == FINAL
    assert redact_printed(FINAL, ["notes about it\n"]) == FINAL
    assert redact_printed(FINAL, ["PIN=4471-9902\n"]) == FINAL.replace(VALUE, SECRET_OUTPUT)   # a word of a line


def test_a_later_read_of_the_sub_agent_file_withholds_the_value_its_earlier_read_saw_printed(tmp_path):
    """(mend24) the parent's Stop hook reads the sub-agent's file while it runs (the withheld
    result only), then again once it has ended: the second read starts past the result, and its
    final turn still stores the value withheld (the earlier bytes are read again for it)."""
    main, sub = _tree(tmp_path, legacy=False)
    recs = sub.read_bytes().splitlines(keepends=True)
    final = recs.pop()                  # the final message comes later
    sub.write_bytes(b"".join(recs))
    store = tmp_path / "store"
    env = hook_env(store)
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, main, stop_hook_active=False), env=env)
    assert rc == 0, err
    texts = _turn_texts(store)
    assert "get the pin" in texts and SECRET_OUTPUT in texts, texts   # its file read up to the result
    assert not any("The pin is" in t for t in texts), texts
    with open(sub, "ab") as f:
        f.write(final)
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, main, stop_hook_active=False), env=env)
    assert rc == 0, err
    _check(store)
