"""test16b B7: the in-place scrub wrote a matched record again through a
JSON parse and dump, so its numbers came out in Python's form (``1E2`` ->
``100.0``, ``1e-7`` -> ``1e-07``); a line with many of them grew, the file
was replaced instead of rewritten in place, an agent holding it open lost
what it wrote after, and the command said only "redacted 2 lines".  Only
the strings holding the text are written again now: every number keeps
its source text and the line its length.  Where a line still cannot keep
its length the command names the file it replaced and what that costs a
running agent.  Real transcript files, real ``mem`` processes."""

from __future__ import annotations

import json
import os
import time

from tests.conftest import live_appender

SID = "55555555-2222-3333-4444-555555555555"


def _record(i: int, text: str) -> dict:
    return {"type": "user", "sessionId": SID, "uuid": f"u{i}", "parentUuid": None, "cwd": "/tmp/t16-proj",
            "timestamp": f"2026-12-03T16:00:0{i}.000Z", "message": {"role": "user", "content": text}}


def _transcript(tmp_path, lines: list[bytes]):
    t = tmp_path / "claude" / "projects" / "-tmp-t16-proj" / f"{SID}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(b"".join(x + b"\n" for x in lines))
    return t, {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


def test_numbers_keep_their_source_text_and_the_file_its_inode(mem, tmp_path):
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    one = json.dumps(_record(1, "café 🚀 日本語 the host is yak-garnet-5"), **compact)
    two = json.dumps({**_record(2, "plain yak-garnet-5"), "costUSD": 0.5, "ratio": 0.25}, **compact)
    two = two.replace("0.5", "1e-7").replace("0.25", "[" + ",".join(["1E2"] * 30) + "]")
    t, env = _transcript(tmp_path, [one.encode(), two.encode(), json.dumps(_record(3, "short ok")).encode()])
    sizes = [len(x) for x in t.read_bytes().splitlines()]
    mem("import", "claude-code", env=env)
    writer = live_appender(t, SID, "/tmp/t16-proj", "live %d")
    time.sleep(0.5)
    ino = os.stat(t).st_ino
    r = mem("forget", "--match", "yak-garnet", "--yes", "--scrub-sources", env=env)
    assert writer.wait(timeout=60) == 0
    assert "replaced" not in r.stderr, r.stderr
    assert os.stat(t).st_ino == ino
    lines = t.read_bytes().splitlines()
    assert [len(x) for x in lines[:3]] == sizes
    assert b"yak-garnet" not in t.read_bytes()
    assert lines[1].count(b"1E2") == 30 and b'"costUSD":1e-7' in lines[1]
    assert sum(b'"live %d"' % i in t.read_bytes() for i in range(30)) == 30
    assert all(json.loads(x) for x in lines)


def test_a_line_that_cannot_keep_its_length_is_named_with_what_it_costs(mem, tmp_path):
    # bytes that are not UTF-8 inside the string that holds the text: written again as \udcff escapes
    bad = json.dumps(_record(1, "the host is yak-garnet-5 XX")).encode().replace(b"XX", b"\xff" * 6)
    t, env = _transcript(tmp_path, [json.dumps(_record(2, "yak-garnet-5 again")).encode(), bad])
    mem("import", "claude-code", env=env)
    ino = os.stat(t).st_ino
    r = mem("forget", "--match", "yak-garnet", "--yes", "--scrub-sources", env=env)
    assert os.stat(t).st_ino != ino
    assert f"warning: {t} was replaced, not rewritten in place" in r.stderr, r.stderr
    assert "an agent still writing it loses what it writes from now" in r.stderr
    assert b"yak-garnet" not in t.read_bytes()
