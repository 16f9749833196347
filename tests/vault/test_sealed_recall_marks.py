"""test30 R7: once the current value of a key is sealed, recall cannot
compare the turns a question finds with it (it never reads a sealed value),
so the turns said before it are marked "a newer sealed value of K may
replace this" (CLI text, --json ``sealed_later``, MCP ``sealed_later``)
instead of standing unmarked as the answer."""

from __future__ import annotations

import json

from objstore.integrations.access import Caller
from objstore.integrations.mcptools import MemoryTools
from objstore.memory.opening import open_store
from tests.hooks._util import asst, line, text, user

SID = "41414141-2222-3333-4444-555555555555"
Q = "which port does the staging api run on"


def test_turns_before_a_sealed_value_are_marked(invoke, tmp_path, store_path):
    t = tmp_path / "t" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(line(user("u1", "the api runs on port 8080 in staging", sid=SID, cwd="/home/dev/api"))
                  + line(asst("a1", "m1", [text("Right, staging api on port 8080.")], sid=SID, cwd="/home/dev/api")))
    invoke("import", "claude-code", str(t))
    invoke("remember", "project/api/port", "the api runs on port 9090 in staging")
    marked = invoke("recall", Q, "--project", "api", "--json").json["hits"]
    assert any(h.get("updated_later") for h in marked if h["kind"] == "turn")     # before the seal: marked
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple x\n")
    invoke("vault", "init", "--passphrase-file", str(pp))
    invoke("seal", "project/api/port")
    out = invoke("recall", Q, "--project", "api").stdout
    assert "8080" in out and "9090" not in out
    assert "(a newer sealed value of project/api/port may replace this: mem sealed show project/api/port)" in out
    hits = [h for h in invoke("recall", Q, "--project", "api", "--json").json["hits"] if h["kind"] == "turn"]
    assert hits and all(h.get("sealed_later") == "project/api/port" for h in hits)
    st = open_store(store_path)
    try:
        got = MemoryTools(st).tool_recall(Caller(name="t", role="read"), [Q], project="api")
        passages = [i for i in got["items"] if i["kind"] == "passage"]
        assert passages and all(i["sealed_later"]["key"] == "project/api/port" for i in passages)
        assert "9090" not in json.dumps(got)
    finally:
        st.close()
