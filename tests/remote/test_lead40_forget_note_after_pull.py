"""fresh39 F2: a forget on a machine that had only *pulled* the value said
the remote held it "(a push from here sent it)".  The note now says what
the store knows (the remote held it at its last sync), and a second machine
that pulls the forget finds the value nowhere, with no note."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_the_forget_note_of_a_pulled_value_claims_no_push(mem, tmp_path):
    s1, s2, remote, key = (str(tmp_path / n) for n in ("s1", "s2", "remote", "k"))
    (tmp_path / "remote").mkdir()
    mem("--home", s1, "remember", "user/x", "y", env=PERSON)
    mem("--home", s1, "remote", "add", "origin", remote, env=PERSON)
    mem("--home", s1, "push", env=PERSON)
    mem("--home", s1, "remote", "key", "export", "-o", key, env=PERSON)
    mem("--home", s2, "clone", remote, "--key", key, env=PERSON)
    mem("--home", s2, "remember", "project/api/cache", "Redis 7 at cache-zebra-9911", env=PERSON)
    mem("--home", s2, "push", env=PERSON)
    mem("--home", s1, "pull", env=PERSON)
    r = mem("--home", s1, "forget", "project/api/cache", "--yes", env=PERSON)
    assert "note: remote origin held the value when this store last synced with it" in r.stderr, r.stderr
    assert "a push from here" not in r.stderr
    mem("--home", s1, "push", env=PERSON)
    r = mem("--home", s2, "pull", env=PERSON)
    assert "note:" not in r.stderr, r.stderr
    r = mem("--home", s2, "scan", "cache-zebra-9911", env=PERSON)
    assert r.stdout.startswith("found nowhere:") and "note:" not in r.stderr, (r.stdout, r.stderr)
