"""What mem proxy captures of a conversation: a ``#nomem`` prompt (tester
finding T15 of session 17) and long tool results, with
the official anthropic SDK against a real proxy process and a loopback
upstream (the rig of ``test_proxy.py``): the prompt, every other block of
its message (Claude Code's ``<system-reminder>``), the tool results and the
answers up to the next prompt are not captured — as docs/hooks.md says of
the hooks — and nothing is recalled for it; a long tool result is cut by
the importers' one cut (``capture.transcript.cut_text``)."""

from __future__ import annotations

import json
import uuid

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from tests.integrations.test_proxy import client, eventually, mem, rig, turns_of  # noqa: E402,F401

REMINDER = {"type": "text", "text": "<system-reminder>the user's todo list is empty</system-reminder>"}


def _texts(rig, sid: str, n: int) -> list[tuple[str, str]]:
    """The session's turns once there are ``n`` (the writer keeps arrival
    order, so an earlier turn would be stored by then)."""
    turns = eventually(lambda: (lambda ts: ts if len(ts) >= n else None)(turns_of(rig, sid)))
    return [(t["role"], t["text"]) for t in turns]


def _ask(c, msgs: list, answer: str) -> list:
    """Send ``msgs`` (the upstream answers ``answer``); the conversation with
    the answer added, as a harness sends it next time."""
    c.messages.create(model="m", max_tokens=10, messages=msgs, extra_headers={"x-test-answer": answer})
    return msgs + [{"role": "assistant", "content": answer}]


def test_a_nomem_prompt_and_its_answer_are_not_captured(rig):
    sid = f"nomem-{uuid.uuid4().hex[:8]}"
    c = client(rig, **{"x-mem-session": sid})
    m1 = {"role": "user", "content": [REMINDER, {"type": "text", "text": "#nomem the launch codename is "
                                                 "ferret-cobalt-6, which postgres version does our db run?"}]}
    c.messages.create(model="m", max_tokens=10, messages=[m1],
                      extra_headers={"x-test-answer": "Noted: the launch codename is ferret-cobalt-6."})
    sent = json.loads(rig["up"].requests[-1][2])
    assert sent["messages"][-1] == m1          # nothing recalled into a marked prompt
    # the answer calls a tool; its result (with a reminder beside it) is still the answer to the marked prompt
    m2 = {"role": "assistant", "content": [{"type": "text", "text": "ferret-cobalt-6: checking"},
                                           {"type": "tool_use", "id": "tu1", "name": "Read", "input": {"p": "x"}}]}
    m3 = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1",
                                       "content": "codename ferret-cobalt-6 confirmed"}, REMINDER]}
    msgs = _ask(c, [m1, m2, m3], "Confirmed ferret-cobalt-6.")
    _ask(c, msgs + [{"role": "user", "content": "next normal prompt about the weather"}], "a normal answer")
    got = _texts(rig, sid, 2)
    assert got == [("user", "next normal prompt about the weather"), ("assistant", "a normal answer")], got
    assert "ferret" not in mem(rig, "search", "ferret-cobalt-6", "--json").stdout
    assert "todo list" not in json.dumps(turns_of(rig, sid))


def test_a_prompt_after_a_tool_stretch_is_captured_again(rig):
    sid = f"nomem-{uuid.uuid4().hex[:8]}"
    c = client(rig, **{"x-mem-session": sid})
    msgs = _ask(c, [{"role": "user", "content": "a normal first prompt"}], "first answer")
    msgs = _ask(c, msgs + [{"role": "user", "content": "#NOMEM a marked second prompt, walrus-amber-2"}],
                "walrus-amber-2 noted")
    _ask(c, msgs + [{"role": "user", "content": "a normal third prompt"}], "third answer")
    got = _texts(rig, sid, 4)
    assert got == [("user", "a normal first prompt"), ("assistant", "first answer"),
                   ("user", "a normal third prompt"), ("assistant", "third answer")], got


def test_a_long_tool_result_is_cut_as_the_importers_cut_it(rig):
    """One cut for every capture path (``capture.transcript.cut_text``), so a
    change to it (where a credential may straddle the cut) reaches the proxy."""
    from objstore.capture.transcript import cut_text
    sid = f"cut-{uuid.uuid4().hex[:8]}"
    long = " ".join(f"line{i:05d}" for i in range(600))          # 5,999 characters
    msgs = [{"role": "user", "content": "a normal prompt that runs a tool"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "tu9", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu9", "content": long}]}]
    client(rig, **{"x-mem-session": sid}).messages.create(model="m", max_tokens=10, messages=msgs,
                                                          extra_headers={"x-test-answer": "done"})
    got = _texts(rig, sid, 3)
    assert ("tool", cut_text(long)) in got and cut_text(long).endswith("…[cut 1999 chars]"), got


def test_a_credential_crossing_the_tool_result_cut_is_not_kept_as_a_prefix(rig):
    """Tester finding T19: the proxy cut a tool result before redaction and
    stored ``… ghp_Q9w2E3r4T5y6U7i8O9p0`` (20 of 36 secret characters)."""
    sid = f"cut-{uuid.uuid4().hex[:8]}"
    secret = "Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
    msgs = [{"role": "user", "content": "a normal prompt that prints the env"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "tu8", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu8",
                                          "content": "a" * 3975 + f" ghp_{secret} tail"}]}]
    client(rig, **{"x-mem-session": sid}).messages.create(model="m", max_tokens=10, messages=msgs,
                                                          extra_headers={"x-test-answer": "done"})
    tool = [t for r, t in _texts(rig, sid, 3) if r == "tool"]
    assert tool and tool[0].endswith("a …[cut 45 chars]"), tool
    assert not any(secret[i:i + 6] in tool[0] for i in range(len(secret) - 5)), tool
