"""test33 T5: a forget's note said "remote origin holds the value (a push
from here sent it)" from this store's pack-ids cache, while another
machine's push had purged the value from the remote already (scan, which
reads the remote, found it nowhere).  The note now says what the store
knows: the remote held it at the last sync from here.  Real ``mem``
processes, a real folder remote."""

from __future__ import annotations

VALUE = "redis on port 6379 canary-rr11"


def test_the_note_says_held_not_holds_when_another_machine_purged(mem, tmp_path):
    remote = tmp_path / "remote1"
    remote.mkdir()
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    mem("--home", b, "init")
    mem("--home", b, "remote", "add", "origin", str(remote), "--no-encrypt")
    mem("--home", b, "remember", "project/api/cache", VALUE)
    mem("--home", b, "push")
    mem("--home", a, "clone", str(remote))
    mem("--home", a, "forget", "project/api/cache", "--yes")
    mem("--home", a, "push")                              # purges it from the remote
    assert mem("--home", a, "scan", VALUE).stdout.startswith("found nowhere")
    r = mem("--home", b, "forget", "project/api/cache", "--yes")   # b never pulled
    assert "holds the value" not in r.stderr, r.stderr
    assert "remote origin held the value when this store last synced with it" in r.stderr, r.stderr
    assert mem("--home", b, "scan", VALUE).stdout.startswith("found nowhere")
