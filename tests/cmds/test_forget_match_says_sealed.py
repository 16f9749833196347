"""test16b B3: ``forget --match`` reads no sealed value (encrypted; it never
asks for the passphrase) and said "nothing matches" while a sealed version
held the text, which ``mem unseal`` then put back in the clear.  It now
says how many sealed keys it did not search and how to reach them.  Real
``mem`` processes, a real vault."""

from __future__ import annotations


def test_forget_match_names_the_sealed_keys_it_did_not_search(mem, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass 1\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", "user/bank/note", "note v4 mole-cedar again")
    mem("seal", "user/bank/note")
    r = mem("forget", "--match", "mole-cedar", "--yes")
    assert "nothing matches" in r.stdout
    assert "note: 1 sealed key was not searched (their values are encrypted)" in r.stderr, r.stderr
    assert "mem sealed forget KEY" in r.stderr and "mole" not in r.stderr
    assert mem("forget", "--match", "mole-cedar", "--yes", "--json").json["sealed_not_searched"] == 1
    # with a plain value holding it too: the forget runs and still says so
    mem("remember", "project/x/k", "mole-cedar in the clear")
    r = mem("forget", "--match", "mole-cedar", "--yes")
    assert "forgot 1 fact version" in r.stdout and "1 sealed key was not searched" in r.stderr
    mem("sealed", "forget", "user/bank/note", "--yes")
    r = mem("forget", "--match", "mole-cedar", "--yes")
    assert "sealed" not in r.stderr, r.stderr
