"""fsck35's left-out (test34b T25): ``mem get KEY`` of a key whose ref file
was set back to an older version than its reflog's last move (a file-level
restore, a synced-folder conflict copy) printed the older value as current,
exit 0, while ``mem fsck`` named it a problem (exit 13) and ``mem doctor``
an error.  Now ``mem get`` exits 13 printing nothing, in fsck's words with
the fix; ``--as-of`` reads as before; after ``mem fsck --repair`` it prints
the last write.  A ref ahead of its reflog is no set-back.  Real ``mem``
processes, a real ref file written back."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def _two_versions(mem) -> tuple[str, str]:
    mem("remember", "project/a/b", "first value one", env=PERSON)
    mem("remember", "project/a/b", "second value two", env=PERSON)
    ids = {x["version"]: x["id"] for x in mem("log", "project/a/b", "--json").json}
    return ids[1], ids[2]


def test_get_of_a_ref_set_back_says_so_and_prints_nothing(mem, store_path):
    v1, v2 = _two_versions(mem)
    (store_path / "refs" / "facts" / "project" / "a" / "b").write_text(v1 + "\n")
    r = mem("get", "project/a/b", exit_code=13)
    assert r.stdout == "", r.stdout
    assert (f"project/a/b: not printed as current: ref facts/project/a/b -> {v1}: set back to an older version; "
            f"its reflog's last entry moved it to {v2}") in r.stderr, r.stderr
    assert "'mem fsck --repair' sets it to its last write again" in r.stderr, r.stderr
    said = [ln for ln in mem("fsck", exit_code=13).stdout.splitlines() if "set back" in ln]
    assert said and said[0].split("error: ", 1)[1] in r.stderr      # one text, fsck's
    assert mem("get", "project/a/b", "--json", exit_code=13).stdout == ""
    assert mem("get", "project/a/b", "--as-of", "now").stdout == "first value one\n"
    mem("fsck", "--repair")
    assert mem("get", "project/a/b").stdout == "second value two\n"


def test_get_of_a_ref_ahead_of_its_reflog_prints_it(mem, store_path):
    v1, v2 = _two_versions(mem)
    log = store_path / "logs" / "refs" / "facts" / "project" / "a" / "b"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]))   # the last move's line lost: the ref is ahead, not set back
    assert mem("get", "project/a/b").stdout == "second value two\n"
