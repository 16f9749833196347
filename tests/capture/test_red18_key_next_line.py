"""test18 U7: a key's value on the line after its label (``api_key:``, ``API
key:``, ``token:``) is redacted like a password's, also where the capture
makes that line break: a tool result whose content blocks hold the label and
the value apart (an MCP tool answering in blocks; the blocks are joined with a
line break).  A real ``mem import`` of a real transcript file.  The value is
fake."""

from __future__ import annotations

from tests.hooks._util import asst, line, text, tool_use, turns, user

KEY = "Zq7mm9xQZq7mm9xQZq7mm9xQ"


def test_a_key_split_from_its_label_by_content_blocks_is_not_stored(tmp_path, invoke, store_path):
    blocks = [{"type": "text", "text": "row: api_key="}, {"type": "text", "text": KEY}]
    t = tmp_path / "13131313-2222-3333-4444-555555555555.jsonl"
    sid = t.stem
    t.write_bytes(line(user("u1", "read the config row", sid))
                  + line(asst("a1", "m1", [tool_use("toolu_1", "mcp__db__query", sql="select * from cfg")], sid))
                  + line(user("r1", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": blocks}], sid))
                  + line(asst("a2", "m2", [text("The row has an api key.")], sid))
                  + line(user("u2", f"API key:\n  {KEY}", sid)))
    invoke("import", "claude-code", str(t))
    stored = "\n".join(x[3] for x in turns(store_path))
    assert KEY not in stored and stored.count("[REDACTED:generic-secret]") >= 2, stored
    assert "row: api_key=" in stored and "API key:" in stored
