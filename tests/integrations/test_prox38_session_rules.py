"""Session 38 (lane prox38), test37b T22, T21, T19.7: ``mem proxy`` against
the prompt hook's rules.  A real proxy process in front of a loopback
Messages API, the official ``anthropic`` SDK as the client.

* T22: a password the redaction replaced in one turn was stored in the clear
  in the conversation's later turns and in a later session of the project
  (the hooks' session rule, ``objstore.memory.sessionrules``, was never made
  on the proxy path: the spool held the text already redacted, so the turn
  writer never saw the value).  Long values and short PINs alike.
* T21: a person's message holding a ``<system-reminder>`` text block (Claude
  Code adds them) before or after the prompt had its "remember that …" or
  correction done, and no confirmation injected.
* T19.7: the proxy's confirmation of a "remember that …" replacing a value
  lacked the hooks' "(replaces the earlier value: mem log KEY)"."""

from __future__ import annotations

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from objstore import scan_store  # noqa: E402
from tests.integrations.test_proxy import eventually  # noqa: E402
from tests.integrations.test_proxy_as_hooks import client, mem, rig, sent_last, settled, system, turns_of  # noqa: E402,F401

REMINDER = ("<system-reminder>\nThe user opened the file /x/config.yml in the IDE. This may or may not be related "
            "to the current task.\n</system-reminder>")


def _say(rig, sid: str, prompts: list, cwd: str = "") -> str:
    """One request of session ``sid`` whose user messages are ``prompts`` (a str, or a content list), each
    answered "ok"; the body sent upstream."""
    msgs = []
    for i, p in enumerate(prompts):
        msgs += [{"role": "user", "content": p}] + ([{"role": "assistant", "content": "ok"}] if i < len(prompts) - 1
                                                     else [])
    kw = {"system": system(cwd)} if cwd else {}
    client(rig, **{"x-mem-session": sid}).messages.create(model="m", max_tokens=5, messages=msgs,
                                                          extra_headers={"x-test-answer": "ok"}, **kw)
    return sent_last(rig)


def _texts(rig, sid: str) -> str:
    return "\n".join(t["text"] for t in turns_of(rig, sid))


def test_a_password_is_withheld_from_the_conversations_later_turns_and_sessions(rig):
    cwd = str(rig["work"] / "t22")
    said = ["my password is Onyx-Kestrel-4471, log in"]
    _say(rig, "px-t22a", said, cwd)
    said += ["use Onyx-Kestrel-4471 on staging too", "and Onyx-Kestrel-4471 for prod"]
    _say(rig, "px-t22a", said, cwd)
    _say(rig, "px-t22b", ["the other session used Onyx-Kestrel-4471"], cwd)   # a later session, same project
    settled(rig, "settle-t22")
    texts = _texts(rig, "px-t22a")
    assert "on staging too" in texts and "for prod" in texts, texts
    assert "Onyx-Kestrel-4471" not in texts, texts
    later = _texts(rig, "px-t22b")
    assert "the other session used" in later and "Onyx-Kestrel-4471" not in later, later
    assert scan_store(rig["home"], [b"Onyx-Kestrel-4471"]) == []


def test_a_short_pin_is_withheld_from_the_conversations_later_turns(rig):
    said = ["my door pin is 7264, open the door api for me", "try 7264 again, then 7264 twice"]
    _say(rig, "px-t22c", said[:1])
    _say(rig, "px-t22c", said)
    settled(rig, "settle-t22c")
    texts = _texts(rig, "px-t22c")
    assert "again, then" in texts and "7264" not in texts, texts


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_system_reminder_block_does_not_silence_the_confirmation(rig, where):
    sid = f"px-t21-{where}"
    key = f"user/remembered/otel-port-{where}"

    def msg(text):
        blocks = [{"type": "text", "text": text}]
        return [{"type": "text", "text": REMINDER}, *blocks] if where == "before" else [*blocks,
                                                                                        {"type": "text",
                                                                                         "text": REMINDER}]
    said = [msg(f"remember that the otel port {where} is 4317")]
    body = _say(rig, sid, said)
    assert f"Remembered as you asked (user_stated): {key} = the otel port {where} is 4317" in body, body
    eventually(lambda: (lambda r: r.stdout.strip())(mem(rig, "get", key)) == f"the otel port {where} is 4317")
    body = _say(rig, sid, [*said, msg("Actually, it's 4318")])
    assert f"Corrected as you asked: {key} = the otel port {where} is 4318" in body, body
    eventually(lambda: (lambda r: r.stdout.strip())(mem(rig, "get", key)) == f"the otel port {where} is 4318")


def test_a_remember_that_replacing_a_value_says_so(rig):
    key = "user/remembered/queue-host"
    body = _say(rig, "px-t197a", ["remember that the queue host is mq-1"])
    assert f"{key} = the queue host is mq-1</mem-context>" in body, body     # nothing replaced yet
    eventually(lambda: mem(rig, "get", key).stdout.strip() == "the queue host is mq-1")
    body = _say(rig, "px-t197b", ["remember that the queue host is mq-2"])
    assert (f"Remembered as you asked (user_stated): {key} = the queue host is mq-2 "
            f"(replaces the earlier value: mem log {key})") in body, body


def test_a_password_named_later_is_withheld_from_the_conversations_earlier_turns(rig):
    """test37b T7 through the proxy: the earlier turn already stored (another request) and one of the same batch."""
    said = ["try Garnet-Heron-6614 as the login", "my password is Garnet-Heron-6614"]
    _say(rig, "px-t7a", said[:1])
    _say(rig, "px-t7a", said)
    _say(rig, "px-t7b", ["try Garnet-Wren-3309 as the login", "my password is Garnet-Wren-3309"])
    settled(rig, "settle-t7")
    for sid in ("px-t7a", "px-t7b"):
        texts = _texts(rig, sid)
        assert "as the login" in texts and "Garnet" not in texts, texts
    mem(rig, "gc", "--prune=now")
    assert scan_store(rig["home"], [b"Garnet-Heron-6614", b"Garnet-Wren-3309"]) == []
