"""fresh41 F3: after a damaged pack, ``mem fsck`` (and the repair's hint)
said a pull from a remote or a backup puts the lost *sealed* keys back; it
cannot: no remote nor backup snapshot holds a sealed value.  Now the
sealed refs get their own words: the way that works, ``mem sealed import
KEY FILE`` of a ``mem sealed export`` file (or a copy of the store's
folder); and that way does put the key back.  Real ``mem`` processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_lost_sealed_key_is_not_promised_back_by_a_pull(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/pin", "okapi-quetzal-5521", "--sensitivity", "secret", env=PERSON)
    mem(*h, "remember", "user/editor", "vim", env=PERSON)
    copy = tmp_path / "pin.age"
    mem(*h, "sealed", "export", "user/pin", "-o", str(copy), env=PERSON)
    mem(*h, "gc", "--prune=now", env=PERSON)
    for p in (home / "objects" / "pack").glob("*.pack"):
        with open(p, "r+b") as f:
            f.truncate(100)
    r = mem(*h, "fsck", "--repair", env=PERSON)
    assert "removed sealed/user/pin" in r.stdout, r.stdout
    assert "sealed/user/pin: no remote or backup snapshot holds a sealed value" in r.stderr, r.stderr
    out = mem(*h, "fsck", env=PERSON).stdout
    said = out[out.index("sealed/user/pin"):]
    assert "mem sealed import KEY FILE" in said and "a pull cannot put them back" in said, out
    assert "facts/user/editor; 'mem pull REMOTE'" in out, out   # a plain key: a pull still can
    mem(*h, "sealed", "import", "user/pin", str(copy), "--passphrase-file", str(pp), env=PERSON)
    out = mem(*h, "fsck", env=PERSON).stdout
    assert "sealed/user/pin" not in out, out
    r = mem(*h, "sealed", "show", "user/pin", "--passphrase-file", str(pp), env=PERSON)
    assert "okapi-quetzal-5521" in r.stdout
