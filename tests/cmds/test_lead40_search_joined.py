"""fresh39 F11: ``mem search port:5432`` (a pasted config fragment) found
nothing although the fact holds "port 5432"; stored text is cut at ':'
and '=', the query word was not.  A joined query word that no text holds
as written is now searched as its parts; a text that holds it joined still
ranks as before."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_joined_query_word_finds_its_parts(mem, tmp_path):
    h = ["--home", str(tmp_path / "s")]
    mem(*h, "remember", "project/a/db", "Postgres 15 on port 5432", env=PERSON)
    mem(*h, "remember", "project/a/cfg", "DB_HOST=pgbox9 port:6543", env=PERSON)
    for q in ("port:5432", "port=5432", "db=postgres", "Postgres:15"):
        hits = mem(*h, "search", q, "--json", env=PERSON).json
        assert [x["key"] for x in hits][:1] == ["project/a/db"], (q, hits)
    hits = mem(*h, "search", "port:6543", "--json", env=PERSON).json      # held joined: found as written
    assert [x["key"] for x in hits] == ["project/a/cfg"], hits
    assert mem(*h, "search", "zzz:qqq", "--json", env=PERSON).json == []
