"""fix12b finding 2: hook capture held back the last assistant message even
when user records followed it, gave those now, and appended the message at
SessionEnd after them, so order and ids differed from ``mem import`` of the
same transcript.  Only a trailing run is kept back (docs/hooks.md); what
follows a run that is kept back is kept back with it, so the final read
gives both in the transcript's order."""

from __future__ import annotations

from objstore import import_transcripts, sync_files
from objstore.capture.claude_code import answer_hash
from objstore.memory.opening import open_store
from tests.conftest import shared_hash_key
from tests.hooks._util import asst, line, text, turns, user

SID = "5d1e6f0a-0000-4000-8000-0000000000b7"


def _ordered(store_path):
    return [(r, x, src) for _s, _q, r, x, src in sorted(turns(store_path), key=lambda t: t[1])]


def test_stop_then_session_end_gives_the_import_order(tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join([
        line(user("u1", "explain the build", SID)),
        line(asst("a1", "msg_a", [text("the build runs make")], SID)),
        line(user("u2", "[Request interrupted by user]", SID)),
        line(user("u3", "now check the tests", SID)),
    ]))
    with open_store(tmp_path / "hook", create=True) as s:
        shared_hash_key(tmp_path / "hook")      # the two stores' ids compared: one prompt-alias key
        sync_files(s, [t], stopped=answer_hash("an answer not in the file"))   # Stop
        sync_files(s, [t], final=True, ended=True)                             # SessionEnd
    with open_store(tmp_path / "imp", create=True) as s:
        shared_hash_key(tmp_path / "imp")
        import_transcripts(s, "claude-code", [t])
    got, want = _ordered(tmp_path / "hook"), _ordered(tmp_path / "imp")
    assert [r for r, _x, _src in want] == ["user", "assistant", "user", "user"]
    assert got == want
    with open_store(tmp_path / "hook") as a, open_store(tmp_path / "imp") as b:
        assert a.refs.read(f"sessions/{SID}") == b.refs.read(f"sessions/{SID}") is not None  # same ids, head included
