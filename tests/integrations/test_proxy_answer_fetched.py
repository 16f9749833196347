"""test36b T7: through ``mem proxy`` a value a call fetched
(``printenv DB_PASSWORD``) was withheld in the request's turns, but the
model's *answer* quoting it was stored in the clear.  The answer is
withheld by the same values (``Prepared.fetched``), never written.  The
real proxy in front of a loopback upstream, the anthropic SDK client."""

from __future__ import annotations

import uuid

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from objstore import scan_store  # noqa: E402
from tests.integrations.test_proxy import client, eventually, rig, turns_of  # noqa: E402,F401  (rig: the fixture)


def test_an_answer_quoting_a_fetched_value_is_stored_withheld(rig):
    tag = uuid.uuid4().hex[:8]
    value = f"Yt6uR3eWq9{tag}"
    sid = f"fetch-{tag}"
    msgs = [
        {"role": "user", "content": "check the db connection"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                           "input": {"command": "printenv DB_PASSWORD"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": value + "\n"}]},
    ]
    client(rig, **{"x-mem-session": sid}).messages.create(
        model="m", max_tokens=20, messages=msgs, extra_headers={"x-test-answer": f"The password is {value}."})
    got = eventually(lambda: [t for t in turns_of(rig, sid) if t.get("role") == "assistant"
                              and "The password is" in t.get("text", "")], rig=rig)
    assert all(value not in t["text"] for t in got) and "[REDACTED:sealed-value]" in got[-1]["text"], got
    assert scan_store(rig["home"], [value.encode()]) == []
