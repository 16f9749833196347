"""A store whose ``config`` is missing: readers exited 10 ("no store")
and ``remember`` exited 2, with different words (session 11's fresh
tester).  Now every command says the same thing, exits 13 as for a
damaged config, and names ``mem fsck --repair``, which writes it back."""

from __future__ import annotations


def test_readers_and_writers_say_the_same_and_fsck_repair_mends_it(mem, store_path):
    mem("remember", "user/editor", "helix")
    (store_path / "config").unlink()
    said = set()
    for args in (("get", "user/editor"), ("keys",), ("remember", "user/editor", "vim"), ("fsck",)):
        r = mem(*args, exit_code=13)
        said.add(r.stderr)
        assert "config is missing" in r.stderr and "mem fsck --repair" in r.stderr
    assert len(said) == 1
    assert not (store_path / "config").exists()          # nothing was made over it
    assert "config was missing" in mem("fsck", "--repair").stdout
    assert mem("get", "user/editor").stdout.strip() == "helix"
