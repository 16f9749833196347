"""test17 T19, the stores written before it was fixed: a mem before
session 18 cut a long tool result (and a sub-agent's summary) first and
redacted the head after, so a credential crossing the cut was stored as a
prefix no rule recognises (``… ghp_Q9w2E3r4T5y6U7i8O9p0…[cut 21 chars]``).
``mem forget --credentials`` finds every stored text still holding a
credential by today's rules, such a prefix included, and rewrites it in its
place redacted; after ``mem gc`` no byte of it is in any object, pack,
index file or log.  The old store is made as 508e10d's import made it: the
turns written through the one turn writer (which redacts, and so keeps the
prefix), the summary through ``remember``.  Real ``mem`` processes."""

from __future__ import annotations

from objstore import remember, scan_store
from objstore.memory.appender import TurnAppender
from objstore.memory.opening import open_store
from objstore.memory.sessions import CapturedTurn

from tests.conftest import fact_chain
from tests.hooks._util import chains_ok, turns

SID = "14141414-2222-3333-4444-555555555555"
SECRETS = [b"Q9w2E3r4T5y6U7i8", b"wJalrXUtnFEMI/K7MDENG", b"Zq7mm9xQ!Lark", b"AKIAIOSFODNN"]
PLAIN_CUT = "the build log says " * 200 + "and the next step is deploy…[cut 55 chars]"
TEXTS = [
    ("user", "run it"),
    ("tool", "a" * 3940 + " aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMP…[cut 10 chars]"),
    ("tool", "a" * 3970 + " DB_PASSWORD=Zq7mm9xQ!Lark#552…[cut 9 chars]"),
    ("tool", PLAIN_CUT),
    ("tool", '[tool_use Bash] {"command": "env"}\n' + "a" * 3950 + " AKIAIOSFODNN…[cut 40 chars]"),
    ("tool", "a" * 3975 + " ghp_Q9w2E3r4T5y6U7i8O9p0"),            # the proxy's cut: 4,000 chars, no mark
    ("assistant", "done"),
]
SUMMARY_KEY = f"project/demo/summary/{SID}.agent-a1"


def write_turns(s, sid: str, texts: list[tuple[str, str]]) -> None:
    """``texts`` (``[(role, text)]``) written as session ``sid``'s turns through
    the one turn writer, as an import does (also red28b's test)."""
    app = TurnAppender(s, command="import claude-code")
    with s.lock("import"):
        for i, (role, text) in enumerate(texts):
            app.add(CapturedTurn(session=sid, source=f"cc:{sid[:8]}-{i}", role=role, text=text,
                                 timestamp=1_772_000_000_000 + i, cwd="/home/u/demo", project="demo"))
        app.publish()
    app.close()


def _old_store(store_path) -> None:
    with open_store(store_path, create=True) as s:
        write_turns(s, SID, TEXTS)
        remember(s, SUMMARY_KEY, "b" * 19_990 + " ghp_Q9w2…", kind="summary")
        remember(s, "project/demo/db", "the staging database is db-7 on port 5432")


def _leaks(store_path) -> list:
    return [h for needle in SECRETS for h in scan_store(store_path, [needle])]


def _indexed(store_path) -> dict:
    """The search index's words of the secrets that it holds (document frequency > 0)."""
    with open_store(store_path) as s:
        return {w: n for w, n in s.index.term_doc_freq(" ".join(x.decode() for x in SECRETS)).items() if n}


def test_forget_credentials_redacts_the_prefixes_an_old_cut_kept(mem, store_path):
    _old_store(store_path)
    mem("gc", "--prune=now")                             # packed, as an old store's objects are
    mem("reindex")
    assert _leaks(store_path)                            # the old store holds them (the test can fail)
    assert _indexed(store_path)
    before = {x[1]: x for x in turns(store_path)}

    r = mem("forget", "--credentials", "--dry-run")
    assert "would redact 1 fact version and 4 turns" in r.stdout, r.stdout
    assert "github-token x2" in r.stdout and "aws-access-key-id" in r.stdout
    assert not any(s.decode() in r.stdout + r.stderr for s in SECRETS)
    assert {x[1]: x for x in turns(store_path)} == before   # a dry run changes nothing

    r = mem("forget", "--credentials", "--yes", "--json")
    j = r.json
    assert j["redacted"] and sorted(t["seq"] for t in j["turns"]) == [1, 2, 4, 5]
    assert [v["key"] for v in j["versions"]] == [SUMMARY_KEY] and j["index_clean"]
    assert not any(s.decode() in r.stdout + r.stderr for s in SECRETS)
    mem("gc", "--prune=now")
    assert _leaks(store_path) == []                      # no object, pack, index file or log holds a byte
    assert _indexed(store_path) == {}                    # nor a word of the search index

    after = {x[1]: x for x in turns(store_path)}
    assert sorted(after) == sorted(before) and chains_ok(store_path)   # every turn keeps its place
    assert after[3][3] == PLAIN_CUT and after[0][3] == "run it"        # a plain cut word stays as it was
    assert after[1][3].endswith(" aws_secret_access_key = [REDACTED:generic-secret]…[cut 10 chars]")
    assert after[2][3].endswith(" DB_PASSWORD=[REDACTED:generic-secret]…[cut 9 chars]")
    assert after[4][3].endswith(" [REDACTED:aws-access-key-id]…[cut 40 chars]")
    assert after[5][3].endswith(" [REDACTED:github-token]")
    assert fact_chain(store_path, SUMMARY_KEY)[0][2].endswith(" [REDACTED:github-token]…")
    assert fact_chain(store_path, "project/demo/db") == [(1, False, "the staging database is db-7 on port 5432")]
    assert "the build log says" in mem("search", "build log", "--json").stdout   # indexed again
    assert mem("fsck", "--json").json["ok"]

    r = mem("forget", "--credentials", "--yes")          # nothing left: idempotent
    assert "nothing changed" in r.stdout


def test_forget_credentials_is_the_persons_goes_alone_and_asks(mem, store_path):
    _old_store(store_path)
    mem("forget", "--credentials", "--yes", env={"MEM_AGENT": "claude"}, exit_code=6)
    mem("forget", "--credentials", "--match", "abc", exit_code=2)
    mem("forget", "--credentials", input="n\n", exit_code=1)
    assert _leaks(store_path)                            # refused, or not confirmed: nothing changed
    r = mem("forget", "--credentials", input="y\n")
    assert "redacted 1 fact version and 4 turns" in r.stdout, r.stdout


def test_forget_credentials_mends_a_token_a_hard_markdown_split_cut_in_two(mem, store_path):
    """``mem import markdown`` before session 18 split a note over 100,000
    characters hard, then redacted each part alone: a token's halves (and a
    secret whose label stayed in the part before) were kept."""
    note1 = "word " * 19_996 + "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9 and more words after"
    note2 = "x" * 99_985 + " AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY tail"
    with open_store(store_path, create=True) as s:
        for name, body in (("long", note1), ("long2", note2)):
            for n, part in enumerate((body[:100_000], body[100_000:]), 1):
                remember(s, f"user/notes/{name}/part-{n}", part, kind="reference")
    assert _leaks(store_path)
    r = mem("forget", "--credentials", "--yes", "--json").json
    assert sorted(v["key"] for v in r["versions"]) == ["user/notes/long/part-1", "user/notes/long/part-2",
                                                        "user/notes/long2/part-2"]
    assert r["rules"] == {"aws-secret-access-key": 1, "github-token": 1}
    mem("gc", "--prune=now")
    assert _leaks(store_path) == []
    assert fact_chain(store_path, "user/notes/long/part-1")[0][2].endswith("word [REDACTED:github-token]")
    assert fact_chain(store_path, "user/notes/long/part-2")[0][2] == "[REDACTED:github-token] and more words after"
    assert fact_chain(store_path, "user/notes/long2/part-2")[0][2] == \
        "ESS_KEY=[REDACTED:aws-secret-access-key] tail"
    assert len(fact_chain(store_path, "user/notes/long2/part-1")[0][2]) == 100_000      # untouched
