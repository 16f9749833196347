"""red30, red30b, red31: the password shapes of ``tests/core/test_red30_redaction.py``,
``test_red30b_redaction.py`` and ``test_red31_redaction.py`` sent through a real ``mem proxy``
(a loopback upstream, the Anthropic SDK as the client) are captured redacted:
no file of the store, packs decompressed, holds any of their secrets, and the
proxied request still carries the person's text as typed (the proxy redacts
what it stores, not what it forwards).  Every secret is fake."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from objstore import scan_store  # noqa: E402
from tests.core import test_red30_redaction, test_red30b_redaction, test_red31_redaction  # noqa: E402
from tests.integrations.test_proxy import client, eventually, rig, turns_of  # noqa: E402,F401  (rig: the fixture)


@pytest.mark.parametrize("shapes", [test_red30_redaction, test_red30b_redaction, test_red31_redaction],
                         ids=["red30", "red30b", "red31"])
def test_the_proxy_captures_the_shapes_redacted(rig, shapes):  # noqa: F811
    cases, kept = shapes.CASES, shapes.LOOKALIKES[0]
    session = "proxy-" + shapes.__name__.rsplit("_", 2)[-2]
    text = "Use these:\n" + "\n".join(t for t, *_ in cases.values()) + "\nKeep: " + kept
    client(rig, **{"x-mem-session": session}).messages.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": text}],
        extra_headers={"x-test-answer": "Noted."})
    sent = json.loads(rig["up"].requests[-1][2].decode())
    assert sent["messages"][-1]["content"] == text                 # forwarded as typed
    turns = eventually(lambda: (lambda ts: ts if len(ts) == 2 else None)(turns_of(rig, session)))
    stored = json.dumps(turns, ensure_ascii=False)
    assert stored.count("[REDACTED:") >= len(cases) and kept in stored, stored
    assert scan_store(rig["home"], [c[1].encode() for c in cases.values()]) == []
