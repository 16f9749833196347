"""A key forget reaches every machine, also the versions it never named
(test37b T16, T10).  Real ``mem`` processes on two stores and folder
remotes, encrypted and ``--no-encrypt``; the library path on a folder and
on S3 (moto); the merge rule itself on the chains a store that forgot the
key meets.

T16: machine B wrote a version of a key on top of the value machine A then
forgot whole, quoting that value, before the forget reached B.  B's pull
emptied A's value and kept B's version; B's push sent it and A's pull made
the forgotten key current again with the forgotten text.  Now the pull
that brings the forget empties such a version (the forgotten value is read
from B's own copy where B cannot read the tombstones' keyed digests), and
a store that forgot the key empties it if it arrives.  A version that does
not quote the forgotten value stays: a forget of a value is no veto on a
new one.

T10: over a ``--no-encrypt`` remote, the pulling clone's own turn quoting
the forgotten value was rewritten (withheld) but its original object stayed,
readable by ``mem show ID``, until ``gc --prune=now``."""

from __future__ import annotations

import json

import blake3
import pytest

from objstore import scan_store
from objstore.core.codec import encode
from objstore.core.objects import Fact, Tombstone
from objstore.core.text import normalize_value, value_digest
from objstore.memory.tombstones import text_tombstone
from objstore.remote.merge import ForgetIndex, merge_chain
from tests.remote._machines import folder_pair
from tests.retrieval._sessions import write_session

KEY = "project/acme/launch"
VALUE = "walrus-sunset-6620"
SID = "0e4d1c2a-5b6f-4a7e-8c9d-00000000c581"


def _pair(tmp_path, mem, *, encrypt: bool):
    """A (``KEY`` = ``VALUE`` pushed) and B cloned from the folder remote."""
    return folder_pair(tmp_path, mem, lambda e: mem("remember", KEY, VALUE, env=e), encrypt=encrypt)


def _get(mem, env, key):
    return mem("get", key, "--json", env=env, exit_code=None)


@pytest.mark.parametrize("encrypt", [True, False], ids=["encrypted", "no-encrypt"])
def test_a_concurrent_version_quoting_the_forgotten_value_is_forgotten_on_both(tmp_path, mem, encrypt):
    a, b, r, ea, eb = _pair(tmp_path, mem, encrypt=encrypt)
    mem("remember", KEY, f"{VALUE} (moved to the vault)", env=eb)   # B, offline
    mem("forget", KEY, "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "1 value quoting a key's value forgotten elsewhere" in out.stdout, out.stdout
    assert VALUE not in out.stdout + out.stderr
    assert _get(mem, eb, KEY).exit_code != 0
    assert scan_store(b, [VALUE.encode()]) == []    # no gc: its object went with the pull
    mem("push", env=eb)
    mem("pull", env=ea)
    assert _get(mem, ea, KEY).exit_code != 0
    assert VALUE not in mem("context", "--project", "acme", env=ea).stdout
    for store in (a, b, r):
        assert scan_store(store, [VALUE.encode()]) == [], store
    assert "0 problems" in mem("fsck", env=eb).stdout


def test_a_new_value_not_quoting_it_stays_and_one_stated_after_the_forget_arrived_too(tmp_path, mem):
    a, b, r, ea, eb = _pair(tmp_path, mem, encrypt=False)
    mem("remember", KEY, "moved to the vault", env=eb)   # B, offline: a new value, not the forgotten one
    mem("forget", KEY, "--yes", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    assert json.loads(_get(mem, eb, KEY).stdout)["body"] == "moved to the vault"
    # the person on B, who now holds the forget, states the old value again on purpose: kept
    mem("remember", KEY, f"{VALUE} again, on purpose", env=eb)
    mem("push", env=eb)
    out = mem("pull", env=ea)   # A is told its forgotten key is current again, and how to remove it
    assert f"1 key forgotten here current again ({KEY})" in out.stdout, out.stdout
    assert "'mem forget KEY' removes it" in out.stdout
    assert json.loads(_get(mem, ea, KEY).stdout)["body"] == f"{VALUE} again, on purpose"
    mem("push", env=ea)
    mem("pull", env=eb)
    assert json.loads(_get(mem, eb, KEY).stdout)["body"] == f"{VALUE} again, on purpose"


def _oid(obj) -> str:
    return blake3.blake3(encode(obj)).hexdigest()


def _chain(*specs) -> list:
    """``[(id, Fact)]`` of ``(body, recorded_at, forgotten)`` specs, linked oldest first."""
    out, parent = [], None
    for n, (body, at, gone) in enumerate(specs, 1):
        f = Fact(key=KEY, kind="project", body=body, version=n, parent=parent, valid_from=at, recorded_at=at,
                 forgotten=gone)
        parent = _oid(f)
        out.append((parent, f))
    return out


def test_the_store_that_forgot_the_key_empties_such_a_version_when_it_arrives():
    """What a store that forgot ``KEY`` at ``T`` (its own tombstones, read
    plain) does with a chain from a machine that emptied the forgotten
    version but kept the later one quoting it (an older mem)."""
    t = 1_790_000_000_000
    fidx = ForgetIndex()
    fidx.add(Tombstone(key=KEY, value_sha256=value_digest(VALUE), time=t, reason="forget"))
    fidx.add(text_tombstone(value_digest(VALUE), len(normalize_value(VALUE)), t, of_value=True))
    arrived = _chain(("", t - 9, t), (f"{VALUE} (moved)", t - 5, 0))
    out = merge_chain([], arrived, fidx, "fact")
    assert out.head is None and out.quoted == 1
    # recorded after the forget, where the forget had arrived: the person stated it again
    later = _chain(("", t - 9, t), (f"{VALUE} (moved)", t + 5, 0))
    assert merge_chain([], later, fidx, "fact").quoted == 0
    # a new value that does not quote it, written before the forget: kept
    other = _chain(("", t - 9, t), ("moved to the vault", t - 5, 0))
    out = merge_chain([], other, fidx, "fact")
    assert out.head == other[-1][0] and out.quoted == 0
    # a version forget (one version, ``version:<ms>``) leaves the others: they may quote it
    vidx = ForgetIndex()
    vidx.add(Tombstone(key=KEY, value_sha256=value_digest(VALUE), time=t, reason=f"version:{t - 9}"))
    assert merge_chain([], arrived, vidx, "fact").quoted == 0


def test_library_pull_on_folder_and_s3(machines):
    from objstore import forget, remember
    a = machines("a")
    remember(a.store, KEY, VALUE)
    a.push()
    b = machines("b", clone_from=a)
    remember(b.store, KEY, f"{VALUE} (moved to the vault)")
    forget(a.store, what=KEY)
    a.push()
    res = b.pull()
    assert b.store.refs.read(f"facts/{KEY}") is None
    assert res.forgotten_quoted == 1
    b.push()
    a.pull()
    assert a.store.refs.read(f"facts/{KEY}") is None


def test_no_encrypt_clone_keeps_no_original_of_its_turn_the_forget_rewrote(tmp_path, mem):
    """T10: the clone's copy of a turn quoting the value goes at the pull,
    as over an encrypted remote (no ``gc --prune=now`` needed)."""
    def fill(env):
        mem("remember", KEY, f"codename {VALUE}", env=env)
        write_session(tmp_path / "tr" / "-home-dev-x", SID, 1,
                      [("user", f"the launch codename {VALUE} is confidential, note it"), ("assistant", "Noted.")],
                      "/home/dev/x")
        mem("import", "claude-code", str(tmp_path / "tr"), env=env)
    a, b, r, ea, eb = folder_pair(tmp_path, mem, fill, encrypt=False)
    assert scan_store(b, [VALUE.encode()]) != []
    mem("forget", KEY, "--yes", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    assert VALUE not in mem("show", SID, env=eb).stdout
    assert scan_store(b, [VALUE.encode()]) == []
    fsck = mem("fsck", env=eb).stdout
    assert "0 unreachable" in fsck and "0 problems" in fsck, fsck


TEXT = "heron-dawn-4402"
SID2 = "0e4d1c2a-5b6f-4a7e-8c9d-00000000c582"


def _no_encrypt_pair(tmp_path, mem, value: str, prompt: str | None = None):
    def fill(env):
        mem("remember", "project/acme/launch", value, env=env)
        if prompt is not None:
            write_session(tmp_path / "tr" / "-home-dev-x", SID2, 1, [("user", prompt), ("assistant", "Noted.")],
                          "/home/dev/x")
            mem("import", "claude-code", str(tmp_path / "tr"), env=env)
    return folder_pair(tmp_path, mem, fill, encrypt=False)


def test_a_pulled_match_forget_reaches_the_pulling_machines_own_facts_over_no_encrypt(tmp_path, mem):
    """T17 as the tester ran it: B cannot read the forget's keyed digest; the
    text is the one window of its length of B's copy of the value it forgot."""
    a, b, r, ea, eb = _no_encrypt_pair(tmp_path, mem, TEXT)
    mem("remember", "project/acme/launch", f"{TEXT} (moved)", env=eb)
    mem("remember", "project/acme/notes", f"we renamed {TEXT}", env=eb)
    mem("remember", "project/acme/other", "the runner is in rack four", env=eb)
    mem("forget", "--match", TEXT, "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "holding a text 'forget --match' forgot" in out.stdout, out.stdout
    assert TEXT not in out.stdout + out.stderr
    assert _get(mem, eb, "project/acme/notes").exit_code != 0
    assert _get(mem, eb, "project/acme/launch").exit_code != 0
    assert json.loads(_get(mem, eb, "project/acme/other").stdout)["body"] == "the runner is in rack four"
    assert scan_store(b, [TEXT.encode()]) == []
    mem("push", env=eb)
    mem("pull", env=ea)
    for store in (a, b, r):
        assert scan_store(store, [TEXT.encode()]) == [], store


def test_the_text_is_read_from_the_turns_the_forget_emptied_too(tmp_path, mem):
    """The value alone leaves several windows ("the codename is …"); B's
    copy of the prompt the forget emptied leaves one in common."""
    a, b, r, ea, eb = _no_encrypt_pair(tmp_path, mem, f"the codename is {TEXT}",
                                       prompt=f"the launch codename {TEXT} is confidential, note it")
    mem("remember", "project/acme/notes", f"we renamed {TEXT}", env=eb)
    mem("remember", "project/acme/codename-note", "the codename is secret", env=eb)
    mem("forget", "--match", TEXT, "--yes", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    assert _get(mem, eb, "project/acme/notes").exit_code != 0
    assert json.loads(_get(mem, eb, "project/acme/codename-note").stdout)["body"] == "the codename is secret"
    assert scan_store(b, [TEXT.encode()]) == []


def test_a_match_text_the_pulling_machine_cannot_tell_is_said(tmp_path, mem):
    """No turn, and a value with several windows of the text's length: B
    guesses nothing, keeps its own note and says what to run."""
    a, b, r, ea, eb = _no_encrypt_pair(tmp_path, mem, f"the codename is {TEXT}")
    mem("remember", "project/acme/notes", f"we renamed {TEXT}", env=eb)
    mem("forget", "--match", TEXT, "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "1 'forget --match' text forgotten elsewhere that this store cannot read" in out.stdout, out.stdout
    assert "run the same 'mem forget --match TEXT' here" in out.stdout
    assert json.loads(_get(mem, eb, "project/acme/notes").stdout)["body"] == f"we renamed {TEXT}"
    mem("forget", "--match", TEXT, "--yes", env=eb)
    mem("gc", "--prune=now", env=eb)
    assert scan_store(b, [TEXT.encode()]) == []
