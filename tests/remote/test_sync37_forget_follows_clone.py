"""A forget reaches the other clone's copies, and nothing the clone holds
brings the forgotten text back (test36b T4, T18).  Real ``mem`` processes,
two or three stores and folder remotes.

T4: over a ``--no-encrypt`` remote the clone cannot read the keyed digest a
forget's tombstones hold (no digests travel), so its pull kept its own copy
of the turn the forget rewrote (the two copies of one turn were chosen by
id), and its next push put the text back on the remote.  The copy with
more withheld (a ``[forgotten]`` / ``[REDACTED:…]`` marker where the other
holds text) is now the one every merge keeps.

T18: after pulling a key forget over an encrypted remote, the clone had no
``forgotten:KEY`` seal rule (they were written only where the forget ran),
so its later sessions stored the value in the clear, served it, and each
push re-uploaded it.  The pull that empties the clone's copy of the value
now writes the same rules there (keyed hashes, never the value), and the
clone's own turns quoting it are rewritten as the forget rewrote them on
the machine that ran it."""

from __future__ import annotations

from objstore import scan_store
from tests.remote._machines import folder_pair as _pair
from tests.retrieval._sessions import write_session

SID_A = "0e4d1c2a-5b6f-4a7e-8c9d-00000000c401"
SID_B = "0e4d1c2a-5b6f-4a7e-8c9d-00000000c402"
SID_B2 = "0e4d1c2a-5b6f-4a7e-8c9d-00000000c403"


def _import(tmp_path, mem, env, sid, lines, day=1, folder="p"):
    root = tmp_path / folder
    write_session(root / "-home-dev-x", sid, day, lines, "/home/dev/x")
    mem("import", "claude-code", str(root), env=env)


def _leaks(store, needle: str) -> list:
    return scan_store(store, [needle.encode()])


def _nowhere(mem, stores, r, needle: str) -> None:
    """After ``gc --prune=now``, no byte of ``needle`` in any of ``stores``
    (``[(env, path)]``) nor in the remote's files."""
    for env, store in stores:
        mem("gc", "--prune=now", env=env)
        assert _leaks(store, needle) == [], store
    assert _leaks(r, needle) == []


def test_match_forget_reaches_a_no_encrypt_clone_and_stays_off_the_remote(tmp_path, mem):
    text = "walrus-orchid-77"
    a, c, r, ea, ec = _pair(tmp_path, mem, lambda e: _import(
        tmp_path, mem, e, SID_A, [("user", f"the codename is {text} for launch"), ("assistant", "Noted.")]),
        encrypt=False)
    assert text in mem("show", SID_A, env=ec).stdout
    mem("forget", "--match", text, "--yes", env=ea)
    # C, offline, quotes the text in a session of its own; then each machine pushes and pulls
    _import(tmp_path, mem, ec, SID_B, [("user", f"C: recall {text} please"), ("assistant", "Sure.")], folder="pc")
    mem("push", env=ea)
    mem("push", env=ec)   # (C cannot read the forget's keyed digests: no digests travel unencrypted)
    mem("pull", env=ea)   # A replaces the text in C's turn, as the forget would have there
    mem("push", env=ea)
    mem("pull", env=ec)   # C takes A's copy of its turn (the one with the text withheld)
    mem("push", env=ec)
    for env, store in ((ea, a), (ec, c)):
        assert text not in mem("show", SID_A, env=env).stdout
        assert text not in mem("show", SID_B, env=env).stdout
    _nowhere(mem, ((ea, a), (ec, c)), r, text)


def test_key_forget_pulled_over_an_encrypted_remote_withholds_the_value_on_the_clone(tmp_path, mem):
    value = "kiwi-tango-42"
    a, b, r, ea, eb = _pair(tmp_path, mem, lambda e: mem("remember", "user/api-host", value, env=e), encrypt=True)
    # B quotes the value in a session of its own before the forget reaches it
    _import(tmp_path, mem, eb, SID_B, [("user", f"is {value} the api host?"), ("assistant", "Yes.")], folder="pb")
    mem("forget", "user/api-host", "--yes", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    # B's own earlier turn is rewritten, and a session B captures later withholds the value
    assert value not in mem("show", SID_B, env=eb).stdout
    _import(tmp_path, mem, eb, SID_B2, [("user", f"B later: is {value} still the api host?"),
                                        ("assistant", "I cannot say.")], day=2, folder="pb2")
    shown = mem("show", SID_B2, env=eb).stdout
    assert "B later: is [REDACTED:forgotten-value] still the api host?" in shown, shown
    mem("push", env=eb)
    mem("pull", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    _nowhere(mem, ((ea, a), (eb, b)), r, value)


def test_a_session_a_forget_removed_goes_from_a_no_encrypt_clone_too(tmp_path, mem):
    """The forget empties the session's only turn, so the ref goes on A and
    on the remote: the clone cannot read the turn tombstone's keyed digest
    and kept its copy whole, pushing it back (test36b T4, as the tester
    found it: a one-prompt session).  The tombstone names the turn's session
    and source in the clear, which is what the clone matches it by."""
    text = "heron-basket-55"
    a, c, r, ea, ec = _pair(tmp_path, mem, lambda e: _import(
        tmp_path, mem, e, SID_A, [("user", f"the launch code is {text} ok")]), encrypt=False)
    assert text in mem("show", SID_A, env=ec).stdout
    mem("forget", "--match", text, "--yes", env=ea)
    mem("push", env=ea)
    mem("pull", env=ec)
    mem("push", env=ec)
    mem("pull", env=ea)
    _nowhere(mem, ((ea, a), (ec, c)), r, text)
