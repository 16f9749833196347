"""Conversations that share their first messages (test26 V6): a harness
that sends no session header and opens every conversation the same way, a
conversation rewound and edited, and a regenerated answer each go on in a
fork of their own (``objstore.integrations.proxy.resolve_thread``): every
turn is captured once, none taken for another conversation's.  The official
anthropic SDK against a real proxy process and the loopback upstream of
``test_proxy.py``."""

from __future__ import annotations

import json
import uuid

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from tests.integrations.test_proxy import client, eventually, mem, rig, turns_of  # noqa: E402,F401

SYS = "You are a helper."


def _texts(rig, sid: str, n: int) -> list[tuple[str, str]]:
    turns = eventually(lambda: (lambda ts: ts if len(ts) >= n else None)(turns_of(rig, sid)), rig=rig)
    return [(t["role"], t["text"]) for t in turns]


def _found(rig, word: str) -> list:
    r = mem(rig, "search", word, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_two_conversations_with_one_opener_are_both_captured(rig):
    tag = uuid.uuid4().hex[:6]
    c = client(rig)                 # no session header: the session is a hash of the system prompt and the opener
    opener = [{"role": "user", "content": f"hi {tag}"}]
    c.messages.create(model="m", max_tokens=9, system=SYS, messages=opener,
                      extra_headers={"x-test-answer": "Hello there"})
    a = opener + [{"role": "assistant", "content": "Hello there"},
                  {"role": "user", "content": f"conversation A: refactor the kestrel{tag} module"}]
    b = opener + [{"role": "assistant", "content": "Hello there"},
                  {"role": "user", "content": f"conversation B: audit the osprey{tag} billing code"}]
    c.messages.create(model="m", max_tokens=9, system=SYS, messages=a, extra_headers={"x-test-answer": "kestrel done"})
    c.messages.create(model="m", max_tokens=9, system=SYS, messages=b, extra_headers={"x-test-answer": "osprey done"})
    assert eventually(lambda: _found(rig, f"kestrel{tag}"), rig=rig)
    assert eventually(lambda: _found(rig, f"osprey{tag}"), rig=rig)      # it was never stored before the fork
    # each conversation goes on in its own thread: B's next turn is captured, A's earlier turns are not again
    c.messages.create(model="m", max_tokens=9, system=SYS,
                      messages=b + [{"role": "assistant", "content": "osprey done"},
                                    {"role": "user", "content": f"and the heron{tag} part too"}])
    assert eventually(lambda: _found(rig, f"heron{tag}"), rig=rig)
    sid = eventually(lambda: (_found(rig, f"osprey{tag}") or [{}])[0].get("session"))
    texts = _texts(rig, sid, 8)
    assert sum(1 for _r, t in texts if t == f"hi {tag}") == 1      # the shared opener, once
    assert [t for _r, t in texts if t.startswith("conversation")] == [
        f"conversation A: refactor the kestrel{tag} module", f"conversation B: audit the osprey{tag} billing code"]
    assert sum(1 for _r, t in texts if t == "osprey done") == 1      # the answer and its echo: one turn
    assert len(texts) == 8, texts


def test_a_regenerated_answer_is_captured_and_either_answer_can_go_on(rig):
    sid = f"regen-{uuid.uuid4().hex[:8]}"
    c = client(rig, **{"x-mem-session": sid})
    q = [{"role": "user", "content": "name a bird"}]
    c.messages.create(model="m", max_tokens=9, messages=q, extra_headers={"x-test-answer": "a swift"})
    with c.messages.stream(model="m", max_tokens=9, messages=q,
                           extra_headers={"x-test-answer": "a wren instead"}) as s:
        assert s.get_final_text().strip() == "a wren instead"
    assert {t for _r, t in _texts(rig, sid, 3)} == {"name a bird", "a swift", "a wren instead"}
    # the person goes on from the second answer (a client may trim it), then from the first
    c.messages.create(model="m", max_tokens=9, messages=q + [
        {"role": "assistant", "content": [{"type": "text", "text": "a wren instead",
                                           "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": "why a wren?"}], extra_headers={"x-test-answer": "wrens sing"})
    c.messages.create(model="m", max_tokens=9, messages=q + [
        {"role": "assistant", "content": "a swift"}, {"role": "user", "content": "why a swift?"}],
        extra_headers={"x-test-answer": "swifts fly"})
    texts = [t for _r, t in _texts(rig, sid, 7)]
    assert sorted(texts) == sorted(["name a bird", "a swift", "a wren instead", "why a wren?", "wrens sing",
                                    "why a swift?", "swifts fly"]), texts


def test_a_rewound_and_edited_prompt_is_captured_and_a_tool_conversation_does_not_fork(rig):
    sid = f"edit-{uuid.uuid4().hex[:8]}"
    c = client(rig, **{"x-mem-session": sid})
    m1 = [{"role": "user", "content": "read the compose file"}]
    c.messages.create(model="m", max_tokens=9, messages=m1, extra_headers={"x-test-answer": "Reading it."})
    m2 = m1 + [{"role": "assistant", "content": [{"type": "text", "text": "Reading it.  "},
                                                 {"type": "tool_use", "id": "tu9", "name": "Read",
                                                  "input": {"path": "docker-compose.yml"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu9",
                                             "content": "image: postgres:16", "cache_control": {"type": "ephemeral"}}]}]
    c.messages.create(model="m", max_tokens=9, messages=m2, extra_headers={"x-test-answer": "It is Postgres 16."})
    m3 = m2 + [{"role": "assistant", "content": "It is Postgres 16."}, {"role": "user", "content": "thanks"}]
    c.messages.create(model="m", max_tokens=9, messages=m3, extra_headers={"x-test-answer": "You're welcome."})
    assert len(_texts(rig, sid, 6)) == 6       # prompt, answer, tool result, answer, thanks, answer: no repeats
    # the person rewinds to the first prompt and asks something else
    c.messages.create(model="m", max_tokens=9, messages=[{"role": "user", "content": "read the Makefile instead"}],
                      extra_headers={"x-test-answer": "Reading the Makefile."})
    c.messages.create(model="m", max_tokens=9, messages=m1 + [{"role": "assistant", "content": "Reading it."},
                                                               {"role": "user", "content": "no, stop: use podman"}],
                      extra_headers={"x-test-answer": "Podman then."})
    texts = [t for _r, t in _texts(rig, sid, 10)]
    assert "read the Makefile instead" in texts and "no, stop: use podman" in texts and "Podman then." in texts
    assert texts.count("Reading it.") == 1 and texts.count("image: postgres:16") == 1 and len(texts) == 10, texts


def test_a_cleared_old_tool_result_and_dropped_middle_messages_store_nothing_twice(rig):
    """test26b W1: a harness that clears an old tool result (Claude Code does
    in long sessions) or drops messages from the middle when the context
    fills forked the thread and captured every later turn again."""
    sid = f"clear-{uuid.uuid4().hex[:8]}"
    c = client(rig, **{"x-mem-session": sid})
    m = [{"role": "user", "content": "list the files"}]
    c.messages.create(model="m", max_tokens=9, messages=m, extra_headers={"x-test-answer": "Listing."})
    m += [{"role": "assistant", "content": [{"type": "text", "text": "Listing."},
                                            {"type": "tool_use", "id": "tl1", "name": "Bash", "input": {"c": "ls"}}]},
          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tl1", "content": "alpha.txt beta.txt"}]}]
    c.messages.create(model="m", max_tokens=9, messages=m, extra_headers={"x-test-answer": "Two files."})
    m += [{"role": "assistant", "content": "Two files."}, {"role": "user", "content": "now the ocelot task"}]
    c.messages.create(model="m", max_tokens=9, messages=m, extra_headers={"x-test-answer": "ocelot done."})
    assert len(_texts(rig, sid, 6)) == 6
    cleared = json.loads(json.dumps(m))
    cleared[2]["content"][0]["content"] = "[Old tool result content cleared]"
    c.messages.create(model="m", max_tokens=9, messages=cleared + [
        {"role": "assistant", "content": "ocelot done."}, {"role": "user", "content": "and the lynx task"}],
        extra_headers={"x-test-answer": "lynx done."})
    texts = [t for _r, t in _texts(rig, sid, 8)]
    assert len(texts) == 8 and texts.count("now the ocelot task") == 1 and "lynx done." in texts, texts
    # the middle dropped (the opener kept): the moved messages are not stored again, the new ones are
    c.messages.create(model="m", max_tokens=9, messages=[m[0]] + m[3:] + [
        {"role": "assistant", "content": "ocelot done."}, {"role": "user", "content": "and the lynx task"},
        {"role": "assistant", "content": "lynx done."}, {"role": "user", "content": "finally the puma task"}],
        extra_headers={"x-test-answer": "puma done."})
    texts = [t for _r, t in _texts(rig, sid, 10)]
    assert len(texts) == 10 and texts.count("now the ocelot task") == 1 and "puma done." in texts, texts


def test_an_assistant_prefill_and_its_answer_are_one_turn(rig):
    """test26b W1: a request ending with a prefill (``{``) forked every next
    request and stored each answer three times."""
    sid = f"prefill-{uuid.uuid4().hex[:8]}"
    c = client(rig, **{"x-mem-session": sid})
    m = [{"role": "user", "content": "name an animal as JSON"}]
    for i, animal in enumerate(("genet", "okapi", "tapir")):
        c.messages.create(model="m", max_tokens=9, messages=m + [{"role": "assistant", "content": "{"}],
                          extra_headers={"x-test-answer": f'"animal": "{animal}"}}'})
        m += [{"role": "assistant", "content": f'{{"animal": "{animal}"}}'},
              {"role": "user", "content": f"another one, not a {animal}"}]
    texts = [t for _r, t in _texts(rig, sid, 6)]
    assert texts == ["name an animal as JSON", '{"animal": "genet"}', "another one, not a genet",
                     '{"animal": "okapi"}', "another one, not a okapi", '{"animal": "tapir"}'], texts


def test_a_regenerated_answer_of_a_conversation_begun_before_ids_were_noted_is_captured(rig):
    """test26b W11: a state written by a proxy older than session 26 notes
    no message identities; the first answer regenerated after the upgrade
    took the first answer's source and was dropped as already stored.  Now
    the answer is compared with the turn stored at its source."""
    from objstore.integrations.proxy import short_hash
    sid = f"oldregen-{uuid.uuid4().hex[:8]}"
    c = client(rig, **{"x-mem-session": sid})
    q = [{"role": "user", "content": "dormouse question"}]
    c.messages.create(model="m", max_tokens=9, messages=q, extra_headers={"x-test-answer": "first answer hazel"})
    assert len(_texts(rig, sid, 2)) == 2
    states = [p for p in (rig["home"] / "cache" / "proxy").glob(short_hash(sid) + "-*") if p.suffix != ".lk"]
    assert len(states) == 1
    lines = [ln for ln in states[0].read_text().splitlines() if set(json.loads(ln)) != {"ids"}]
    assert len(lines) < len(states[0].read_text().splitlines())
    states[0].write_text("".join(ln + "\n" for ln in lines))       # as the older proxy left it
    c.messages.create(model="m", max_tokens=9, messages=q, extra_headers={"x-test-answer": "regenerated chestnut"})
    c.messages.create(model="m", max_tokens=9, messages=q + [
        {"role": "assistant", "content": "regenerated chestnut"}, {"role": "user", "content": "continue walnut"}],
        extra_headers={"x-test-answer": "third answer acorn"})
    texts = [t for _r, t in _texts(rig, sid, 5)]
    assert sorted(texts) == sorted(["dormouse question", "first answer hazel", "regenerated chestnut",
                                    "continue walnut", "third answer acorn"]), texts
    # the same answer again is no regeneration: stored once
    c.messages.create(model="m", max_tokens=9, messages=q, extra_headers={"x-test-answer": "first answer hazel"})
    assert sum(1 for t in (x["text"] for x in turns_of(rig, sid)) if t == "first answer hazel") == 1
