"""Issue 21 item 15: two sessions that share only an assistant message id
(different record uuids, different prompts) keep all their own records; a
resumed or forked copy loses only its copied records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from objstore import import_transcripts, sync_files
from objstore.memory.opening import open_store
from tests.hooks._util import asst, bag, line, text, tool_result, tool_use, user

A = "5d1e6f0a-0000-4000-8000-0000000000c1"
B = "5d1e6f0a-0000-4000-8000-0000000000c2"


def _files(d: Path) -> tuple[Path, Path]:
    d.mkdir(parents=True, exist_ok=True)
    ta, tb = d / f"{A}.jsonl", d / f"{B}.jsonl"
    ta.write_bytes(line(user("a-u1", "rename the config loader", A))
                   + line(asst("a-a1", "msg_shared", [text("renamed it")], A)))
    tb.write_bytes(line(user("b-u1", "the wombat-7731 release notes", B))
                   + line(asst("b-a1", "msg_shared", [text("drafted notes")], B))
                   + line(user("b-u2", "ship it", B))
                   + line(asst("b-a2", "msg_b2", [text("shipped")], B)))
    return ta, tb


@pytest.mark.parametrize("path", ["import", "hook"])
def test_shared_message_id_keeps_the_new_records(tmp_path, path):
    ta, tb = _files(tmp_path / "proj")
    with open_store(tmp_path / "s", create=True) as s:
        if path == "import":
            import_transcripts(s, "claude-code", [ta.parent])
        else:
            sync_files(s, [ta], final=True)
            sync_files(s, [tb], final=True)
    got = bag(tmp_path / "s")
    assert got[(B, "user", "the wombat-7731 release notes")] == 1
    assert got[(B, "user", "ship it")] == 1 and got[(B, "assistant", "shipped")] == 1
    assert got[(A, "user", "rename the config loader")] == 1
    # the shared message id carries two different answers: each session keeps its own
    assert got[(B, "assistant", "drafted notes")] == 1 and got[(A, "assistant", "renamed it")] == 1


@pytest.mark.parametrize("path", ["import", "hook"])
def test_resumed_copy_with_the_same_message_text_is_stored_once(tmp_path, path):
    """The same answer under the same message id in a resumed copy (new uuids) is not
    stored again; the copy's new exchange is."""
    d = tmp_path / "proj"
    d.mkdir()
    (d / f"{A}.jsonl").write_bytes(line(user("a-u1", "rename the config loader", A))
                                   + line(asst("a-a1", "msg_shared", [text("renamed it")], A)))
    (d / f"{B}.jsonl").write_bytes(line(user("b-u1", "rename the config loader", B))
                                   + line(asst("b-a1", "msg_shared", [text("renamed it")], B))
                                   + line(user("b-u2", "now the tests", B))
                                   + line(asst("b-a2", "msg_b2", [text("tests pass")], B)))
    with open_store(tmp_path / "s", create=True) as s:
        if path == "import":
            import_transcripts(s, "claude-code", [d])
        else:
            sync_files(s, [d / f"{A}.jsonl"], final=True)
            sync_files(s, [d / f"{B}.jsonl"], final=True)
    got = bag(tmp_path / "s")
    assert sorted((r, x) for (sid, r, x) in got if sid == B) == [("assistant", "tests pass"), ("user", "now the tests")]
    assert got[(A, "assistant", "renamed it")] == 1


def test_shared_message_prompt_is_searchable(tmp_path, invoke):
    ta, _tb = _files(tmp_path / "proj")
    invoke("import", "claude-code", str(ta.parent))
    assert "wombat-7731" in invoke("search", "wombat-7731", "--json").stdout


def test_fork_with_new_uuids_drops_copied_tool_results_keeps_new(tmp_path):
    d = tmp_path / "proj"
    d.mkdir()
    a = [line(user("u1", "run the tests", A)),
         line(asst("x1", "msg_1", [tool_use("tu1", command="pytest")], A)),
         line(user("r1", [tool_result("tu1", "3 passed")], A)),
         line(asst("x2", "msg_2", [text("all green")], A))]
    b = []
    for raw in a:
        rec = json.loads(raw)
        rec["sessionId"], rec["uuid"] = B, "fork-" + rec["uuid"]
        b.append(line(rec))
    b += [line(user("n1", "now the linter", B)), line(asst("n2", "msg_3", [text("lint clean")], B))]
    (d / f"{A}.jsonl").write_bytes(b"".join(a))
    (d / f"{B}.jsonl").write_bytes(b"".join(b))
    with open_store(tmp_path / "s", create=True) as s:
        import_transcripts(s, "claude-code", [d])
    got = bag(tmp_path / "s")
    assert sorted((r, x) for (sid, r, x) in got if sid == B) == [("assistant", "lint clean"),
                                                                 ("user", "now the linter")]
