"""A later statement of the same quantity goes before the earlier one, and a
prompt is never marked as updated by its own answer (session 27, test26 V12;
``objstore.retrieval.timeline`` rules 9 and 10).

In May the assistant said the gateway's API rate limit is "100 requests per
minute per key"; in October the person said "Bump the gateway limit: from
today keys get 500 requests per minute." and the assistant answered "Done:
… now allows 500 requests per minute per key."  Recall put the May turns
first, unmarked, and marked the *October prompt* "updated later" with its
own answer: the October turn repeats too few of the May words for the
similarity test, and ranks far below it.  Now the unit after the number
("requests per minute") and the words the two sentences share (gateway,
limit, key) tie them (rule 10), and the answer to a prompt never marks the
prompt (rule 9).  Real ``mem import`` / ``mem recall`` / ``mem context``
processes and a real prompt hook on Claude Code transcripts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.retrieval._sessions import prompt_hook

CWD = "/home/dev/gateway"
MAY_Q = "What is the API rate limit for the public gateway?"
MAY_A = ("The API rate limit for the public gateway is 100 requests per minute per key. "
         "The rate limit is enforced in gateway/limits.py.")
OCT_Q = "Bump the gateway limit: from today keys get 500 requests per minute."
OCT_A = "Done: gateway/limits.py now allows 500 requests per minute per key."
S1 = "00000000-0000-4000-8000-000000000001"
S2 = "00000000-0000-4000-8000-000000000002"
MAY = 1777626000000   # 2026-05-01T09:00:00Z
OCT = 1790845200000   # 2026-10-01T09:00:00Z


def _session(root: Path, sid: str, lines: list[tuple[str, str]], start_ms: int) -> None:
    """A Claude Code transcript of ``lines`` ((role, text)) in ``CWD``'s
    folder, a second apart from ``start_ms``."""
    d = root / "-home-dev-gateway"
    d.mkdir(parents=True, exist_ok=True)
    rows, parent = [], None
    for i, (role, text) in enumerate(lines):
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start_ms / 1000 + i + 1)) + ".000Z"
        uuid = f"{sid[-6:]}-{i}"
        rows.append(json.dumps({"type": role, "sessionId": sid, "cwd": CWD, "uuid": uuid, "parentUuid": parent,
                                "timestamp": ts, "message": {"role": role, "content": text if role == "user"
                                                             else [{"type": "text", "text": text}]}}) + "\n")
        parent = uuid
    (d / f"{sid}.jsonl").write_text("".join(rows))


def _v12(mem, tmp_path: Path, october: list[tuple[str, str]] | None = None) -> None:
    _session(tmp_path / "tx", S1, [("user", MAY_Q), ("assistant", MAY_A)], MAY)
    _session(tmp_path / "tx", S2, october or [("user", OCT_Q), ("assistant", OCT_A)], OCT)
    mem("import", "claude-code", str(tmp_path / "tx"))


def _hits(mem, question: str) -> list[dict]:
    return mem("recall", question, "--project", "gateway", "--json").json["hits"]


def test_v12_the_later_limit_goes_before_the_earlier_and_marks_it(mem, tmp_path):
    _v12(mem, tmp_path)
    for question in ("what is the API rate limit", "rate limit"):
        hits = _hits(mem, question)
        texts = [h["text"] for h in hits]
        assert OCT_Q in texts and MAY_A in texts, hits
        assert texts.index(OCT_Q) < texts.index(MAY_A), (question, texts)
        may = hits[texts.index(MAY_A)]
        assert may["updated_later"] and may["updated_later"]["text"] == OCT_Q, may
        # the prompt is not "updated later" by its own answer (the V12 wrong mark)
        assert hits[texts.index(OCT_Q)]["updated_later"] is None, hits
        assert all(h["updated_later"] is None for h in hits if h["session"] == S2), hits
        # every value-stating hit before the May answer is October's
        stating = [h for h in hits[:texts.index(MAY_A)] if h["text"] != MAY_Q]
        assert stating and all(h["session"] == S2 for h in stating), texts
    out = mem("recall", "rate limit", "--project", "gateway").stdout
    assert f"updated later (2026-10-01T09:00:01Z, {S2}#0): {OCT_Q}" in out, out


def test_v12_the_prompt_hook_puts_the_later_turn_above_the_stale_passage(mem, tmp_path):
    _v12(mem, tmp_path)
    text, trace = prompt_hook(tmp_path / "store", MAY_Q, CWD, tmp_path / "trace.jsonl", fresh=True)   # MEM_HOME
    got = text.splitlines()
    at = next(i for i, x in enumerate(got) if x.endswith(MAY_A))
    assert "MAY BE OUT OF DATE: the later turn above says it changed" in got[at], text
    assert got[at - 1].startswith(f"- later turn, session {S2} (2026-10-01, user, gateway): ") \
        and got[at - 1].endswith(OCT_Q), text
    assert [x["turn"] for x in trace["later_turns"] if "passage" in x], trace


#: later turns of the person, with a change word and a number of the same unit, that do not restate the limit
NOT_RESTATED = [
    "The batch exporter now sends 500 requests per minute to the billing service.",   # another thing counted
    "Is the gateway limit now 500 requests per minute?",                                # asks
    "Bump the staging gateway limit: staging keys get 500 requests per minute.",        # a sibling (staging)
    "Bump the gateway timeout to 500 ms.",                                              # another unit
]


@pytest.mark.parametrize("later", NOT_RESTATED, ids=range(len(NOT_RESTATED)))
def test_a_number_of_the_same_unit_said_of_another_thing_marks_nothing(mem, tmp_path, later):
    _v12(mem, tmp_path, [("user", later), ("assistant", "ok")])
    question = ("what is the API rate limit for the public production gateway" if "staging" in later
                else "what is the API rate limit")
    hits = _hits(mem, question)
    may = next(h for h in hits if h["text"] == MAY_A)
    assert may["updated_later"] is None, hits


def test_a_fact_restated_by_a_later_turn_is_marked_and_the_block_header_says_so(mem, tmp_path):
    """The quantity restated marks a recorded fact too, in recall, the
    session-start block (whose header then says a value may be marked) and
    the prompt hook."""
    key, fact = "project/gateway/rate-limit", "The public gateway API rate limit is 100 requests per minute per key"
    mem("remember", key, fact)
    _session(tmp_path / "tx", S2, [("user", OCT_Q), ("assistant", OCT_A)], int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = _hits(mem, "what is the API rate limit")
    f = next(h for h in hits if h["kind"] == "fact")
    assert f["updated_later"]["text"] == OCT_Q and hits.index(f) > [h["text"] for h in hits].index(OCT_Q), hits
    block = mem("context", "--project", "gateway").stdout
    assert "current values only" not in block and "a value marked MAY BE OUT OF DATE is one a later turn" in block, block
    assert f"- later turn, session {S2} (" in block, block
    text, _trace = prompt_hook(tmp_path / "store", "what is the API rate limit", CWD, tmp_path / "trace.jsonl",
                               fresh=True)
    assert "MAY BE OUT OF DATE" in text and OCT_Q in text, text
    assert mem("get", key).stdout.strip() == fact


def test_an_unmarked_block_keeps_its_header(mem, tmp_path):
    mem("remember", "project/gateway/rate-limit", "The public gateway API rate limit is 100 requests per minute")
    block = mem("context", "--project", "gateway").stdout
    assert "current values only (older values were superseded)" in block, block


def test_the_answer_to_a_later_prompt_of_the_session_is_no_answer_to_this_one():
    """Rule 9 reads an exchange as a prompt and the turns after it up to the
    next prompt: an assistant turn after a later prompt of the same session
    may still supersede the first prompt's value."""
    from objstore.retrieval.restated import answer_to
    from objstore.retrieval.timeline import Item, relations
    mk = lambda seq, role, v, t: Item(time=t, project="p", values={v: "int"}, matched={"port"}, relevance=1.0,  # noqa: E731
                                      terms={"port", "api"}, cue=True, role=role, seq=seq, session="s",
                                      text=f"the api port is {v} now")
    ask = mk(0, "user", "5432", 1)
    ack = mk(1, "assistant", "6543", 2)
    items = [ask, ack]
    assert answer_to(items, 0, 1) and relations(items)[0][0] == []
    later_prompt = Item(time=3, project="p", values={}, matched={"port"}, relevance=1.0, role="user", seq=2,
                        session="s", text="and the api?")
    items = [ask, later_prompt, mk(3, "assistant", "6543", 4)]
    assert not answer_to(items, 0, 2) and relations(items)[0][0] == [2]
    other = [ask, mk(1, "assistant", "6543", 2).replace(session="t")]   # another session: no exchange
    assert not answer_to(other, 0, 1) and relations(other)[0][0] == [1]
