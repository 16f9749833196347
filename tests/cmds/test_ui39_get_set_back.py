"""test38: ``mem get`` printed an older value with no word when the key's
ref was set back to an older version than its reflog's last move (a
file-level restore, a synced folder's older copy): only fsck and doctor
said so.  Now get and log warn on stderr, naming both versions and the
repair; the value printed is still the ref's (a script's $(mem get) reads
what it read before)."""

from __future__ import annotations


def test_get_and_log_say_the_ref_was_set_back(invoke, store_path):
    invoke("remember", "project/a/db", "postgres 15")
    invoke("remember", "project/a/db", "postgres 16")
    ids = {v["version"]: v["id"] for v in invoke("log", "project/a/db", "--json").json}
    r = invoke("get", "project/a/db")
    assert r.stdout == "postgres 16\n" and "set back" not in r.stderr
    (store_path / "refs" / "facts" / "project" / "a" / "db").write_text(ids[1] + "\n")
    said = (f"warning: project/a/db was set back: its ref holds v1 ({ids[1][:12]}), an older version than "
            f"v2 ({ids[2][:12]}) its reflog's last move set it to")
    r = invoke("get", "project/a/db")
    assert r.stdout == "postgres 15\n" and said in r.stderr and "'mem fsck --repair' restores" in r.stderr, r.stderr
    assert said in invoke("get", "project/a/db", "--json").stderr
    assert said in invoke("log", "project/a/db").stderr
    invoke("fsck", "--repair", exit_code=None)
    r = invoke("get", "project/a/db")
    assert r.stdout == "postgres 16\n" and "set back" not in r.stderr, r.stderr
