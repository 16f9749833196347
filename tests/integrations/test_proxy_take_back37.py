"""Session 37 (lane corr37), test36 T13 / test36b T11: through ``mem proxy``,
"forget that" right after a "remember that" took nothing back and said
nothing, and a correction as the next prompt ("Actually, it's 6002") was
ignored (the hooks take both back: ``capture.takeback``).  Now the proxy
reads the same rule: it tells the model what it takes back or corrects, in
the hooks' words, and does it once the turn is stored.  A real proxy process
in front of a loopback Messages API, the official SDK as the client."""

from __future__ import annotations

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from tests.integrations.test_proxy import eventually  # noqa: E402
from tests.integrations.test_proxy_as_hooks import client, mem, rig, sent_last  # noqa: E402,F401


def _say(rig, sid: str, prompts: list[str]) -> str:
    """One request of session ``sid`` whose messages are ``prompts`` each answered "ok"; the body sent upstream."""
    msgs = []
    for i, p in enumerate(prompts):
        msgs += [{"role": "user", "content": p}] + ([{"role": "assistant", "content": "ok"}] if i < len(prompts) - 1
                                                     else [])
    client(rig, **{"x-mem-session": sid}).messages.create(model="m", max_tokens=5, messages=msgs,
                                                          extra_headers={"x-test-answer": "ok"})
    return sent_last(rig)


def _get(rig, key: str) -> str | None:
    r = mem(rig, "get", key)
    return r.stdout.strip() if r.returncode == 0 else None


def test_forget_that_through_the_proxy_takes_the_statement_back(rig):
    key = "user/remembered/ci-runner"
    said = ["remember that the ci runner is gh-large-7"]
    assert f"Remembered as you asked (user_stated): {key}" in _say(rig, "px-tb37a", said)
    eventually(lambda: _get(rig, key) == "the ci runner is gh-large-7")
    body = _say(rig, "px-tb37a", [*said, "forget that"])
    assert f"Taken back as you asked: {key} is forgotten" in body, body
    eventually(lambda: _get(rig, key) is None)


def test_a_correction_through_the_proxy_is_the_keys_next_version(rig):
    key = "user/remembered/db-port"
    said = ["remember that the db port is 6001"]
    _say(rig, "px-tb37b", said)
    eventually(lambda: _get(rig, key) == "the db port is 6001")
    body = _say(rig, "px-tb37b", [*said, "Actually, it's 6002"])
    assert f"Corrected as you asked: {key} = the db port is 6002" in body, body
    eventually(lambda: _get(rig, key) == "the db port is 6002")
