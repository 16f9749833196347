"""A key's reflog file full of random bytes read as "no reflog" (exit 4)
and ``mem fsck`` said nothing (session 19's tester).  A reflog line that is
not ``<old id> <new id> <ms> <command>`` is damage now: ``mem reflog KEY``
exits 13 naming the file, ``mem fsck`` names it (exit 13), and ``mem fsck
--repair`` moves it to the quarantine and writes its readable lines back."""

from __future__ import annotations

import os

KEY = "project/api/db"
SHOWN = "logs/refs/facts/project/api/db"


def _reflog(store_path):
    return store_path / SHOWN


def test_a_garbage_reflog_is_damage_that_fsck_names_and_repair_sets_aside(mem, store_path):
    mem("remember", KEY, "Postgres 15")
    mem("remember", KEY, "Postgres 16")
    _reflog(store_path).write_bytes(os.urandom(400).replace(b"\n", b"\r\n"))   # several lines, none a reflog line
    r = mem("reflog", KEY, exit_code=13)
    assert "no reflog" not in r.stderr
    assert f"the reflog of facts/{KEY} is damaged: {SHOWN} line" in r.stderr and "fsck --repair" in r.stderr
    j = mem("reflog", KEY, "--json", exit_code=13)
    assert '"code": 13' in j.stderr
    all_refs = mem("reflog")                           # every ref: goes on, and says what it skipped
    assert f"damaged ref ({SHOWN} line" in all_refs.stderr
    f = mem("fsck", exit_code=13)
    assert f"error: {SHOWN} line" in f.stdout and "(damaged reflog)" in f.stdout
    assert any(SHOWN in p for p in mem("fsck", "--json", exit_code=13).json["problems"])

    rep = mem("fsck", "--repair", "--json").json       # nothing readable in it: the file goes
    [aside] = rep["repair"]["reflogs_set_aside"]
    assert aside["file"] == SHOWN and aside["lines_kept"] == 0 and aside["lines_dropped"] >= 1
    assert rep["repair"]["relost"] == [f"facts/{KEY}"]   # its head recorded in a new reflog (test31 U6)
    [q] = list((store_path / "quarantine").iterdir())
    assert (q / ("reflog-" + SHOWN.replace("/", "%2F"))).is_file()
    assert mem("fsck").stdout.startswith("ok:")
    assert mem("get", KEY).stdout.strip() == "Postgres 16"   # nothing stored was lost
    mem("remember", KEY, "Postgres 17")
    assert [m["command"] for m in mem("reflog", KEY, "--json").json] == [
        "remember", "fsck --repair: the reflog was lost; the ref's head recorded"]


def test_repair_keeps_the_readable_lines_of_a_partly_damaged_reflog(mem, store_path):
    mem("remember", KEY, "Postgres 15")
    mem("remember", KEY, "Postgres 16")
    p = _reflog(store_path)
    good = p.read_bytes()
    p.write_bytes(good + b"\x00\xffgarbage cut sh\n")
    r = mem("reflog", KEY, exit_code=13)
    assert f"{SHOWN} line 3" in r.stderr
    out = mem("fsck", "--repair").stdout
    assert f"set aside the damaged reflog {SHOWN}" in out and "dropped 1 unreadable line, kept 2 readable lines" in out
    assert p.read_bytes() == good
    assert len(mem("reflog", KEY, "--json").json) == 2
