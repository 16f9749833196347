"""Issue 21 item 9: a prompt typed while an assistant message streams does not
split the message, and hook capture gives the same turns as an import of the
same transcript, whatever the timing of the hooks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from objstore import capture_prompt, import_transcripts, sync_files
from objstore.memory.opening import open_store
from tests.hooks._util import asst, bag, chains_ok, line, text, tool_result, tool_use, turns, user

SID = "5d1e6f0a-0000-4000-8000-0000000000a9"


def _records() -> list[bytes]:
    return [
        line(user("u1", "explain the build", SID)),
        line(asst("a1", "msg_m", [text("part one of the answer")], SID)),
        line(asst("a2", "msg_m", [text("part two of the answer")], SID)),
        line(user("u2", "also check the tests", SID)),                       # typed mid-answer
        line(asst("a3", "msg_m", [tool_use("tu1", command="make test")], SID)),
        line(user("r1", [tool_result("tu1", "all passed")], SID)),
        line(asst("a4", "msg_n", [text("done: tests pass")], SID)),
    ]


def _fresh_import(tmp: Path, f: Path):
    other = tmp / "fresh"
    shutil.rmtree(other, ignore_errors=True)
    with open_store(other, create=True) as s:
        import_transcripts(s, "claude-code", [f])
    return bag(other)


def test_prompt_mid_message_does_not_split_it(tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(_records()))
    with open_store(tmp_path / "s", create=True) as s:
        import_transcripts(s, "claude-code", [t])
    got = [(role, txt) for _s, _q, role, txt, _src in sorted(turns(tmp_path / "s"), key=lambda x: x[1])]
    assert got[:3] == [("user", "explain the build"),
                       ("assistant", "part one of the answer\npart two of the answer\n"
                                     '[tool_use Bash] {"command": "make test"}'),
                       ("user", "also check the tests")]
    assert len(got) == 5


@pytest.mark.parametrize("cut", [2, 3, 4])
def test_hooks_at_any_moment_give_the_import_turns(tmp_path, cut):
    recs = _records()
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(recs[:cut]))                    # the transcript when the prompt arrives
    with open_store(tmp_path / "s", create=True) as s:
        capture_prompt(s, session_id=SID, prompt="also check the tests", cwd="/home/u/proj", transcript=t)
        t.write_bytes(b"".join(recs))
        sync_files(s, [t], final=True)                    # Stop
    assert chains_ok(tmp_path / "s")
    assert bag(tmp_path / "s") == _fresh_import(tmp_path, t)
