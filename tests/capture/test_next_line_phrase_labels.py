"""sec20 defect 2: an agent answering "Your API key is:" with the key alone
on the next line, a user pasting "Your password is:" and the password under
it, a Bash call continuing ``export API_KEY=\\`` onto the next line: the
value was stored in clear (the next-line rule knew only ``password:``,
``api_key:``, ``token:``).  A real ``mem import`` of a real transcript file;
the values are fake."""

from __future__ import annotations

from tests.hooks._util import asst, line, text, tool_result, tool_use, turns, user

KEY = "Zq7mm9xQ4kLp2Wv8Zq7m"
PASSWORD = "Velvet-Otter-Harbor-42"


def test_values_under_phrase_labels_and_continuations_are_not_stored(tmp_path, invoke, store_path):
    t = tmp_path / "39393939-2222-3333-4444-555555555555.jsonl"
    sid = t.stem
    t.write_bytes(line(user("u1", f"Your password is:\n{PASSWORD}\nplease keep it", sid))
                  + line(asst("a1", "m1", [text(f"Done. Your API key is:\n{KEY}\n")], sid))
                  + line(asst("a2", "m2", [tool_use("toolu_1", command=f"export API_KEY=\\\n  {KEY}\n./deploy.sh")],
                              sid))
                  + line(user("r1", [tool_result("toolu_1", f"Here is your token:\n{KEY}")], sid)))
    invoke("import", "claude-code", str(t))
    stored = "\n".join(x[3] for x in turns(store_path))
    assert KEY not in stored and PASSWORD not in stored, stored
    assert "Your password is:" in stored and "Your API key is:" in stored and "export API_KEY=" in stored
    assert stored.count("[REDACTED:generic-secret]") >= 4, stored
