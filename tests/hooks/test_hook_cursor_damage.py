"""A hook cursor (``cache/cursors/<h>.json``) whose offset is negative, a
float, a string, or whose device is not a number: every later Stop and
SessionEnd sync of that transcript failed (an ``OSError`` in hooks.log) and
capture of the session stopped silently (test17 T16).  Now such a cursor is
read as absent: the transcript is read again from its start and the turn
writer's dedup stores nothing twice; ``mem doctor`` names it and ``mem
doctor --fix`` removes it.  Real ``mem hook`` and ``mem doctor`` processes
on real files."""

from __future__ import annotations

import json

import pytest

from tests.hooks._util import asst, bag, chains_ok, hook_env, hook_log, line, payload, run_hook_done, text, user

SID = "dddddddd-2222-3333-4444-555555555555"


def _exchange(i: int) -> bytes:
    return line(user(f"u{i}", f"prompt {i}", SID)) + line(asst(f"a{i}", f"msg_{i}", [text(f"answer {i}")], SID))


def _stop(store_path, t, event: str = "Stop") -> None:
    rc, _out, err, _s = run_hook_done(store_path, payload(event, SID, t, stop_hook_active=False, reason="other"))
    assert rc == 0, err


@pytest.mark.parametrize("field,value", [("offset", -50), ("offset", 12.5), ("offset", "12"), ("dev", "x"),
                                         ("fp_len", -1), ("offset", True)])
def test_an_unusable_cursor_is_read_as_absent_and_doctor_names_it(mem, tmp_path, store_path, field, value):
    t = tmp_path / "proj" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(b"".join(_exchange(i) for i in range(3)))
    _stop(store_path, t)
    assert "cursors" not in {f["check"] for f in mem("doctor", "--json", exit_code=None).json["findings"]}
    [c] = (store_path / "cache" / "cursors").glob("*.json")
    h = json.loads(c.read_text())
    h[field] = value
    c.write_text(json.dumps(h))
    before = bag(store_path)
    assert len(before) == 5                                  # the trailing answer waits (Stop holds it back)

    found = [f for f in mem("doctor", "--json", exit_code=None).json["findings"] if f["check"] == "cursors"]
    assert len(found) == 1 and found[0]["severity"] == "warning" and c.name in found[0]["message"]
    assert field in found[0]["message"] or "version" in found[0]["message"]

    with open(t, "ab") as f:
        f.write(_exchange(9))
    _stop(store_path, t)
    _stop(store_path, t, "SessionEnd")
    after = bag(store_path)
    assert after - before == {(SID, "assistant", "answer 2"): 1, (SID, "user", "prompt 9"): 1,
                              (SID, "assistant", "answer 9"): 1}
    assert set(after.values()) == {1}                        # read again from 0: nothing twice
    assert chains_ok(store_path)
    assert "OSError" not in hook_log(store_path)
    h = json.loads(c.read_text())                            # the sync wrote a good cursor back
    assert h["offset"] == t.stat().st_size
    assert "cursors" not in {f["check"] for f in mem("doctor", "--json", exit_code=None).json["findings"]}


def test_doctor_fix_removes_an_unusable_cursor(mem, tmp_path, store_path):
    t = tmp_path / "proj" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(_exchange(0))
    _stop(store_path, t)
    [c] = (store_path / "cache" / "cursors").glob("*.json")
    h = json.loads(c.read_text())
    h["offset"] = -1
    c.write_text(json.dumps(h))
    r = mem("doctor", exit_code=None)
    assert "[cursors]" in r.stdout and "mem doctor --fix" in r.stdout
    assert str(t) not in r.stdout                            # named by its cursor file, not the transcript
    r = mem("doctor", "--fix", exit_code=None)
    assert "fixed: removed 1 unusable hook cursor(s)" in r.stdout and "[cursors]" not in r.stdout
    assert not c.exists() and not c.with_suffix(".state").exists()
    with open(t, "ab") as f:
        f.write(_exchange(1))
    _stop(store_path, t, "SessionEnd")
    assert set(bag(store_path).values()) == {1} and len(bag(store_path)) == 4


def test_the_prompt_hook_reads_past_a_negative_offset_in_the_state_file(tmp_path, store_path):
    """The prompt hook reads the cursor's ``.state`` alone (``live.prompt_snapshot``):
    a negative offset there made it seek before the file's start and defer the
    prompt to the next Stop; now it scans the transcript from its start and
    stores the prompt at once."""
    t = tmp_path / "proj" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(b"".join(_exchange(i) for i in range(2)))
    _stop(store_path, t)
    [st] = (store_path / "cache" / "cursors").glob("*.state")
    r = json.loads(st.read_text())
    r["offset"] = -50
    st.write_text(json.dumps(r))
    rc, _out, err, _s = run_hook_done(store_path, payload("UserPromptSubmit", SID, t, prompt="the next question"),
                                      env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0, err
    assert bag(store_path)[(SID, "user", "the next question")] == 1       # stored at once, not deferred
    assert set(bag(store_path).values()) == {1}
