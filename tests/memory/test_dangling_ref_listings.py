"""A ref that names a missing object reads like a ref file holding garbage
(lane rob11): listings and searches (``keys``, ``search``, ``recall``,
``context``, ``stats``) skip that key, warn "damaged ref (facts/KEY)
skipped" and exit 0; ``mem get KEY`` of that one key keeps its clear error
(exit 13, a dangling ref: docs/exit-codes.md); ``mem fsck`` reports both
kinds.  Before, keys, search and stats exited 13 for the whole store."""

from __future__ import annotations

import json

PERSON = {"MEM_AGENT": "0"}
MISSING = "0" * 61 + "abc"


def test_a_ref_to_a_missing_object_is_skipped_by_listings_like_a_garbage_ref(mem, tmp_path):
    home = tmp_path / "s"
    for k, v in (("user/editor", "vim"), ("user/shell", "zsh"), ("user/lang", "python")):
        mem("--home", str(home), "remember", k, v, env=PERSON)
    (home / "refs" / "facts" / "user" / "editor").write_text(MISSING + "\n")
    warn = "1 damaged ref (facts/user/editor) skipped"
    r = mem("--home", str(home), "keys", "--json")
    assert [k["key"] for k in json.loads(r.stdout)] == ["user/lang", "user/shell"]
    assert warn in r.stderr
    r = mem("--home", str(home), "search", "vim")
    assert r.stdout == "" and warn in r.stderr
    r = mem("--home", str(home), "recall", "vim", "--all-projects")
    assert "user/editor" not in r.stdout and warn in r.stderr
    r = mem("--home", str(home), "context")
    assert "user/shell" in r.stdout and "user/editor" not in r.stdout and warn in r.stderr
    r = mem("--home", str(home), "stats", "--json")
    assert warn in r.stderr
    r = mem("--home", str(home), "get", "user/editor", exit_code=13)
    assert MISSING in r.stderr and "missing or damaged" in r.stderr
    assert mem("--home", str(home), "get", "user/shell").stdout == "zsh\n"
    # a garbage ref beside it: the same words, both named by fsck
    (home / "refs" / "facts" / "user" / "shell").write_text("garbage\n")
    r = mem("--home", str(home), "keys")
    assert r.stdout.startswith("user/lang") and "2 damaged refs (" in r.stderr
    r = mem("--home", str(home), "fsck", exit_code=13)
    assert f"ref facts/user/editor -> {MISSING}: missing or corrupt object" in r.stdout
    assert "ref facts/user/shell: does not hold an object id" in r.stdout
