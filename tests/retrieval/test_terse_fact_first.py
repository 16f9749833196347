"""A terse current fact outranks the long turns that state its older value
(tester test23's Z1), and a fact of another subject does not (test23b's V1).
BM25 scores "Postgres 16 on port 5433" far below "Postgres uses port 5432 here,
Postgres 15.", which says more of the question's words; the time rule
(``objstore.retrieval.timeline``, rule 4) must still put the fact whose older
version said 5432 first and mark every such turn "updated later", in the CLI's
text and JSON and in MCP recall (one function serves both); a fact that only
shares "postgres" and "port" must not.  Real transcript import, real ``mem``
processes, the official MCP client on ``mem mcp``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "system"))
from mcp_helpers import stdio_session  # noqa: E402

SID = "44444444-2222-3333-4444-555555555555"
QUESTION = "which port does postgres use"


def _transcript(tmp_path: Path) -> Path:
    lines = [("user", "which port does postgres use?"),
             ("assistant", [{"type": "text", "text": "Postgres uses port 5432 here, Postgres 15."}]),
             ("user", "ok, postgres port 5432 it is")]
    d = tmp_path / "tx" / "-src-api"
    d.mkdir(parents=True)
    f = d / f"{SID}.jsonl"
    f.write_text("".join(json.dumps({"type": role, "sessionId": SID, "cwd": "/src/api", "uuid": f"q{i}",
                                     "timestamp": f"2026-10-01T10:0{i}:00Z",
                                     "message": {"role": role, "content": content}}) + "\n"
                         for i, (role, content) in enumerate(lines)))
    return tmp_path / "tx"


def _check_order(hits: list[dict]) -> None:
    fact = next(i for i, h in enumerate(hits) if h["kind"] == "fact")
    assert "5433" in hits[fact]["text"]
    stale = [i for i, h in enumerate(hits) if h["kind"] == "turn" and "5432" in h["text"]]
    assert len(stale) == 2, hits
    assert all(fact < i for i in stale), [h["text"] for h in hits]
    assert all(hits[i]["updated_later"] and hits[i]["updated_later"]["key"] == "project/api/db" for i in stale)


def test_a_terse_current_fact_outranks_the_turns_stating_the_old_port(mem, tmp_path):
    mem("remember", "project/api/db", "Postgres 15 on port 5432")
    mem("import", "claude-code", str(_transcript(tmp_path)))
    mem("remember", "project/api/db", "Postgres 16 on port 5433")
    _check_order(mem("recall", QUESTION, "--project", "api", "--json").json["hits"])
    text = mem("recall", QUESTION, "--project", "api").stdout
    assert text.index("5433") < text.index("5432")
    assert text.count("updated later") == 2, text

    async def main():
        async with stdio_session() as s:
            res = await s.call_tool("recall", {"queries": [QUESTION], "project": "api"})
            assert not res.is_error, res.content
            return res.structured_content
    items = anyio.run(main)["items"]
    fact = next(i for i, h in enumerate(items) if h["kind"] == "fact")
    assert items[fact]["value"] == "Postgres 16 on port 5433"
    stale = [i for i, h in enumerate(items) if h["kind"] == "passage" and "5432" in h["text"]]
    assert len(stale) == 2 and all(fact < i for i in stale), items
    for i in stale:
        assert items[i]["updated_later"]["key"] == "project/api/db", items[i]
        assert items[i]["updated_later"]["text"] == "Postgres 16 on port 5433"
        assert items[i]["updated_later"]["time"].startswith("20")
    assert "updated_later" not in items[fact]


@pytest.mark.parametrize("other", ["pgbouncer listens on port 6432 in front of postgres",
                                   "analytics replica: postgres on port 5439"])
def test_a_fact_about_another_subject_neither_outranks_nor_marks_the_answer(mem, tmp_path, other):
    """Tester test23b's V1: a fact that shares "postgres" and "port" but never
    held the turn's value (no version of its key said 5432) is not the
    answer about the primary's port: the turn that answers stays first,
    unmarked."""
    sid = "51515151-2222-3333-4444-555555555555"
    d = tmp_path / "tx" / "-src-api"
    d.mkdir(parents=True)
    lines = [("user", "which port does the postgres primary use?"),
             ("assistant", [{"type": "text", "text": "The postgres primary uses port 5432."}])]
    (d / f"{sid}.jsonl").write_text("".join(
        json.dumps({"type": role, "sessionId": sid, "cwd": "/src/api", "uuid": f"p{i}",
                    "timestamp": f"2026-10-01T10:0{i}:00Z", "message": {"role": role, "content": content}}) + "\n"
        for i, (role, content) in enumerate(lines)))
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", "project/api/other", other)
    hits = mem("recall", "which port does the postgres primary use", "--project", "api", "--json").json["hits"]
    answer = next(i for i, h in enumerate(hits) if h["text"] == "The postgres primary uses port 5432.")
    fact = next(i for i, h in enumerate(hits) if h["kind"] == "fact")
    assert answer < fact, [h["text"] for h in hits]
    assert not any(h["updated_later"] for h in hits), hits
