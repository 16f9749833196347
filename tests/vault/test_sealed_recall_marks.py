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
    # test30b S4: a question in other words (it names no key) finds the same turns marked
    other = [h for h in invoke("recall", "where does the api run in staging", "--project", "api", "--json").json["hits"]
             if h["kind"] == "turn" and "8080" in h["text"]]
    assert other and all(h.get("sealed_later") == "project/api/port" for h in other)
    # another project's recall marks nothing
    assert not any(h.get("sealed_later") for h in invoke("recall", "staging", "--project", "web", "--json").json["hits"])
    st = open_store(store_path)
    try:
        got = MemoryTools(st).tool_recall(Caller(name="t", role="read"), [Q], project="api")
        passages = [i for i in got["items"] if i["kind"] == "passage"]
        assert passages and all(i["sealed_later"]["key"] == "project/api/port" for i in passages)
        assert "9090" not in json.dumps(got)
    finally:
        st.close()


def test_only_turns_about_the_sealed_keys_subject_are_marked(invoke, tmp_path):
    """test30b S8 / test30c T10: a sealed ``project/api/port`` marks the
    turns that say the api's port, and one that holds their value without
    the word ("Noted: staging api on 8080."); not redis's nor the web
    frontend's port turns, which only share the key's word."""
    t = tmp_path / "t" / f"{SID}.jsonl"
    t.parent.mkdir()
    said = [("u1", "redis runs on port 6379 for the cache"), ("a1", "Right, redis cache on port 6379."),
            ("u2", "the api runs on port 8080 in staging"), ("a2", "Noted: staging api on 8080."),
            ("u3", "the web frontend listens on port 3000")]
    t.write_bytes(b"".join(line(user(u, x, sid=SID, cwd="/home/dev/api")) if u[0] == "u"
                           else line(asst(u, "m" + u, [text(x)], sid=SID, cwd="/home/dev/api")) for u, x in said))
    _sealed_after(invoke, tmp_path, t, "project/api/port", "the api runs on port 9090 in staging")
    for q in ("what port does redis use", "which port does the frontend listen on", "which port does the api use"):
        hits = {h["text"]: h.get("sealed_later") for h in invoke("recall", q, "--project", "api", "--json").json["hits"]
                if h["kind"] == "turn"}
        assert hits.get("the api runs on port 8080 in staging") == "project/api/port", (q, hits)
        assert hits.get("Noted: staging api on 8080.") == "project/api/port", (q, hits)
        for other in ("redis runs on port 6379 for the cache", "Right, redis cache on port 6379.",
                      "the web frontend listens on port 3000"):
            assert other not in hits or hits[other] is None, (q, hits)
        assert any(x in hits for x in ("redis runs on port 6379 for the cache", "the web frontend listens on port 3000"))


def test_a_sealed_user_key_marks_its_own_subject_in_any_project(invoke, tmp_path):
    """test30b S8: a sealed ``user/github-token`` marks web's older turn
    that says the github token, not web's deploy token turn."""
    t = tmp_path / "t" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(line(user("u1", "the deploy token for web is stored in the CI secrets as WEB_DEPLOY_TOKEN_V2",
                            sid=SID, cwd="/home/dev/web"))
                  + line(user("u2", "my github token expires on 2027-01-31, the github token is rotated yearly",
                              sid=SID, cwd="/home/dev/web")))
    _sealed_after(invoke, tmp_path, t, "user/github-token", "the github token expires on 2028-01-31")
    hits = {h["text"]: h.get("sealed_later")
            for h in invoke("recall", "which token do we use, the github token?", "--project", "web", "--json").json["hits"]
            if h["kind"] == "turn"}
    assert hits.get("my github token expires on 2027-01-31, the github token is rotated yearly") == "user/github-token", hits
    deploy = "the deploy token for web is stored in the CI secrets as WEB_DEPLOY_TOKEN_V2"
    assert deploy in hits and hits[deploy] is None, hits


def _sealed_after(invoke, tmp_path, transcript, key: str, value: str) -> None:
    """The transcript imported, then ``key`` remembered as ``value`` and sealed."""
    invoke("import", "claude-code", str(transcript))
    invoke("remember", key, value)
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple x\n")
    invoke("vault", "init", "--passphrase-file", str(pp))
    invoke("seal", key)
