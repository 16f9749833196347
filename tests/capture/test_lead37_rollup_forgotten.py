"""test37 T4: a sub-agent whose final message quoted a value forgotten
before ("Report: the launch codename is heron-basalt-4420 and the cache ttl
is 300s.") got no summary at all: the rollup's write was refused by the
tombstone check (an agent's value holding a forgotten text) and the refusal
was swallowed, so the parent lost the sub-agent's conclusion (the cache
TTL) with nothing said.  Now the summary is written with the forgotten
value withheld, as its turn is stored.  Real transcript files through a
real ``mem import``."""

from __future__ import annotations

import pytest

from tests.capture.test_sealed_output_capture import _mem
from tests.capture.test_sealed_trail_tree import SID, _summaries, _ts, _write
from tests.capture.test_sealed_rollup_echo import _turn_texts
from tests.hooks._util import asst, text, user

AGENT = "c1b2c3d4"


@pytest.mark.parametrize("forget", [("project/proj/codename", "--yes"), ("--match", "heron-basalt-4420", "--yes")])
def test_a_sub_agent_quoting_a_forgotten_value_still_leaves_its_summary_with_the_value_withheld(tmp_path, forget):
    store = tmp_path / "store"
    _mem("--home", str(store), "remember", "project/proj/codename", "the launch codename is heron-basalt-4420")
    _mem("--home", str(store), "forget", *forget)
    proj = tmp_path / "-home-u-proj"
    main = proj / f"{SID}.jsonl"
    _write(main, [user("u0", "ask a sub-agent for the report", SID, ts=_ts(0)),
                  asst("pe", "msg_pe", [text("Done.")], SID, ts=_ts(500))])
    side = {"isSidechain": True, "agentId": AGENT}
    final = "Report: the launch codename is heron-basalt-4420 and the cache ttl is 300s."
    _write(proj / f"{SID}/subagents/agent-{AGENT}.jsonl",
           [user("A0", "write the report", SID, ts=_ts(62), **side),
            asst("Az", "msg_Az", [text(final)], SID, ts=_ts(90), **side)])
    _mem("--home", str(store), "import", "claude-code", str(proj))
    bodies = _summaries(store)
    assert len(bodies) == 1 and "the cache ttl is 300s" in bodies[0], bodies     # the conclusion is kept
    assert "heron-basalt" not in bodies[0], bodies                               # the forgotten value is not
    if forget[0] != "--match":   # (a --match text said in a later session is stored, and redacted where served)
        assert not any("heron-basalt" in t for t in _turn_texts(store))
