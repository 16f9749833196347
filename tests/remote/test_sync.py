"""push, pull, clone and forget-that-follows against a folder and a real S3
protocol server (moto on loopback)."""

from __future__ import annotations

import glob
import os
import threading
from pathlib import Path

import pytest

from objstore import (current, fsck, list_sessions, queue_items, remember, scan_store, search, versions)

WRITES = int(os.environ.get("MEM_SOAK_WRITES", "10"))   # read at import: the env fixture clears MEM_*
SAMPLES = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


def _import(store):
    from objstore import import_transcripts
    return import_transcripts(store, "claude-code", [SAMPLES])


def _log(store, key):
    return [(v.fact.body, v.fact.forgotten) for v in versions(store, key)]


def _all_remote_plaintexts(target, key_text: str | None) -> list[bytes]:
    """Every remote object downloaded, decrypted and every pack entry decompressed."""
    from objstore.core.pack import Pack
    from objstore.remote.layout import Sealer, unbundle
    from objstore.remote.transport import open_transport
    from objstore.vault import age
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    ident = None
    if key_text:
        ident = [ln for ln in key_text.splitlines() if ln.startswith("AGE-SECRET-KEY-")][0]
    sealer = Sealer(age.recipient_of(ident) if ident else None, ident)
    out = []
    import tempfile
    for name, _s, _m in t.list(""):
        data, _e = t.read(name)
        if name == "mem-remote":
            out.append(data)
            continue
        plain = sealer.open(data, name)
        out.append(plain)
        if name.startswith("packs/"):
            pack, idx = unbundle(plain)
            with tempfile.TemporaryDirectory() as d:
                stem = Path(d) / f"pack-{idx[-64:-32].hex()}"
                stem.with_suffix(".pack").write_bytes(pack)
                stem.with_suffix(".idx").write_bytes(idx)
                with Pack(stem.with_suffix(".idx")) as p:
                    out.extend(p.get(o) for o in p)
    return out


def test_clone_gives_same_log_sessions_search(machines):
    a = machines("a")
    _import(a.store)
    remember(a.store, "project/acme/db", "Postgres 16 on port 5433")
    remember(a.store, "project/acme/db", "Postgres 17 on port 5434")
    res = a.push()
    assert res.objects_sent > 0 and res.packs_sent == 1
    b = machines("b", clone_from=a)
    assert _log(a.store, "project/acme/db") == _log(b.store, "project/acme/db")
    assert [(s.id, s.turns, s.head) for s in list_sessions(a.store)] == \
        [(s.id, s.turns, s.head) for s in list_sessions(b.store)]
    for q in ("Postgres", "port 5434", "acme"):
        assert [h.id for h in search(a.store, q)] == [h.id for h in search(b.store, q)]
    assert fsck(b.store).ok
    # nothing new: an incremental push sends nothing, a pull receives no pack
    again = a.push()
    assert again.objects_sent == 0 and again.packs_sent == 0
    assert b.pull().packs_received == 0


def test_encrypted_at_rest(machines, target):
    a = machines("a")
    remember(a.store, "user/editor", "helix-editor-sentinel")
    _import(a.store)
    a.push()
    from objstore.remote.transport import open_transport
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    for name, _s, _m in t.list(""):
        data, _e = t.read(name)
        assert b"helix-editor-sentinel" not in data and b"user/editor" not in data
        if name != "mem-remote":
            assert data.startswith(b"age-encryption.org/v1\n")


def test_no_encrypt_stores_plain_cbor(machines, target):
    a = machines("a", encrypt=False)
    remember(a.store, "user/editor", "helix-plain")
    a.push()
    blobs = _all_remote_plaintexts(target, None)
    assert any(b"helix-plain" in b for b in blobs)
    b = machines("b", clone_from=a, encrypt=False)
    assert current(b.store, "user/editor").fact.body == "helix-plain"


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_offline_writes_converge(machines, order):
    a = machines("a")
    remember(a.store, "project/p/port", "8080")
    a.push()
    b = machines("b", clone_from=a)
    import time
    remember(a.store, "project/p/port", "9090 from A")
    time.sleep(0.005)
    remember(b.store, "project/p/port", "7070 from B")     # the later write
    first, second = (a, b) if order == "ab" else (b, a)
    first.push()
    second.push()
    first.pull()
    for m in (a, b):
        assert current(m.store, "project/p/port").fact.body == "7070 from B"
        bodies = [v.fact.body for v in versions(m.store, "project/p/port")]
        assert set(bodies) == {"8080", "9090 from A", "7070 from B"}
        assert fsck(m.store).ok
    assert [v.id for v in versions(a.store, "project/p/port")] == [v.id for v in versions(b.store, "project/p/port")]
    assert a.store.refs.read("facts/project/p/port") == b.store.refs.read("facts/project/p/port")


def test_equal_times_tie_break_is_deterministic(machines):
    a = machines("a")
    a.push()
    b = machines("b", clone_from=a)
    remember(a.store, "user/tz", "UTC", valid_from=1_700_000_000_000)
    remember(b.store, "user/tz", "CET", valid_from=1_700_000_000_000)
    b.push()
    a.push()
    b.pull()
    assert current(a.store, "user/tz").id == current(b.store, "user/tz").id


def test_lower_trust_challenge_goes_to_queue(machines):
    a = machines("a")
    remember(a.store, "project/p/db", "Postgres", valid_from=1_700_000_000_000)
    a.push()
    b = machines("b", clone_from=a)
    # A: the person states a new value; B: an agent observes another one, later
    remember(a.store, "project/p/db", "MySQL (user)", valid_from=1_700_000_000_100)
    remember(b.store, "project/p/db", "SQLite (agent)", trust="agent_observed", valid_from=1_700_000_000_200)
    a.push()
    b.push()
    a.pull()
    for m in (a, b):
        assert current(m.store, "project/p/db").fact.body == "MySQL (user)"
        qs = queue_items(m.store)
        assert [q.item.body for q in qs] == ["SQLite (agent)"]
    assert queue_items(a.store)[0].id == queue_items(b.store)[0].id


def test_sessions_merge_without_duplicates(machines):
    a = machines("a")
    a.push()
    b = machines("b", clone_from=a)
    _import(a.store)
    _import(b.store)           # the same transcripts imported on both machines
    a.push()
    b.push()
    a.pull()
    sa, sb = list_sessions(a.store), list_sessions(b.store)
    assert [(s.id, s.turns, s.head) for s in sa] == [(s.id, s.turns, s.head) for s in sb]
    assert len(sa) == len({s.id for s in sa})
    for s in sa:
        assert a.store.refs.read(f"sessions/{s.id}") == b.store.refs.read(f"sessions/{s.id}")


def test_forget_follows_the_value(machines, target):
    canary = "canary-okapi-7731"
    a = machines("a")
    remember(a.store, "project/p/token", "first value")
    remember(a.store, "project/p/token", f"the door code is {canary}")
    remember(a.store, "project/p/token", "third value")
    remember(a.store, "user/pet", f"{canary} is the pet")
    _import(a.store)
    a.push()
    b = machines("b", clone_from=a)
    assert current(b.store, "user/pet").fact.body.startswith(canary)
    from objstore import forget
    forget(a.store, match=canary)
    res = a.push()
    assert res.remote_packs_rewritten >= 1
    # no object of the remote holds the value, though B has not pulled yet
    blobs = _all_remote_plaintexts(target, a.key())
    assert not any(canary.encode() in x for x in blobs)
    # B pulls: its copies go, and it arrives at the same ids
    b.pull()
    assert scan_store(b.root, [canary.encode()]) == []
    assert fsck(b.store).ok
    assert [v.id for v in versions(a.store, "project/p/token")] == [v.id for v in versions(b.store, "project/p/token")]
    assert [v.fact.body for v in versions(b.store, "project/p/token")] == ["third value", "", "first value"]
    assert b.store.refs.read("facts/user/pet") is None
    assert search(b.store, canary) == []
    b.push()
    blobs = _all_remote_plaintexts(target, a.key())
    assert not any(canary.encode() in x for x in blobs)


def test_forget_reaches_a_machine_that_pushes_without_pulling(machines, target):
    canary = "canary-lynx-5512"
    a = machines("a")
    remember(a.store, "user/code", canary)
    a.push()
    b = machines("b", clone_from=a)
    remember(b.store, "user/other", "unrelated")
    from objstore import forget
    forget(a.store, what="user/code")
    a.push()
    b.push()               # a push pulls tombstones first: B cannot push the value back
    assert b.store.refs.read("facts/user/code") is None
    assert scan_store(b.root, [canary.encode()]) == []
    assert not any(canary.encode() in x for x in _all_remote_plaintexts(target, a.key()))
    a.pull()
    assert current(a.store, "user/other").fact.body == "unrelated"


def test_local_forget_then_pull_of_old_copy(machines, target):
    """B forgot a value that A still has and pushes: B's pull must not bring it back."""
    canary = "canary-heron-0042"
    a = machines("a")
    remember(a.store, "user/x", canary)
    a.push()
    b = machines("b", clone_from=a)
    remember(a.store, "user/y", "A writes more")
    a.push()
    from objstore import forget
    forget(b.store, what="user/x")
    b.pull()
    assert b.store.refs.read("facts/user/x") is None
    assert scan_store(b.root, [canary.encode()]) == []
    b.push()
    a.pull()
    assert a.store.refs.read("facts/user/x") is None
    assert scan_store(a.root, [canary.encode()]) == []
    assert not any(canary.encode() in x for x in _all_remote_plaintexts(target, a.key()))


def test_push_race(machines):
    a = machines("a")
    a.push()
    b = machines("b", clone_from=a)
    remember(a.store, "user/a", "from a")
    remember(b.store, "user/b", "from b")
    errs = []

    def run(m):
        try:
            m.push()
        except Exception as e:  # pragma: no cover - reported below
            errs.append(e)
    ts = [threading.Thread(target=run, args=(m,)) for m in (a, b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs
    a.pull()
    b.pull()
    for m in (a, b):
        assert current(m.store, "user/a").fact.body == "from a"
        assert current(m.store, "user/b").fact.body == "from b"


def test_wrong_key_and_newer_format(machines, tmp_path, target):
    from objstore import WrongKey, clone
    from objstore.core.errors import UnsupportedVersion
    a = machines("a")
    remember(a.store, "user/k", "v")
    a.push()
    other = machines("other")
    with pytest.raises(WrongKey):
        other.pull()
    from objstore.vault import age
    ident, _r = age.generate_x25519()
    with pytest.raises(WrongKey):
        clone(tmp_path / "c", target.url, endpoint=target.endpoint, key=ident, env=target.env)
    assert not (tmp_path / "c").exists()
    # a remote written by a newer mem
    import cbor2
    from objstore.remote.transport import open_transport
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    desc, _e = t.read("mem-remote")
    d = cbor2.loads(desc)
    d["format"] = 2
    t.delete("mem-remote")
    t.create("mem-remote", cbor2.dumps(d, canonical=True))
    before = sorted(p.name for p in (a.root / "refs" / "facts" / "user").iterdir())
    with pytest.raises(UnsupportedVersion):
        a.pull()
    assert sorted(p.name for p in (a.root / "refs" / "facts" / "user").iterdir()) == before


def test_corrupted_remote_pack(machines, target):
    from objstore import IntegrityError
    a = machines("a")
    remember(a.store, "user/k", "v")
    a.push()
    from objstore.remote.transport import open_transport
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    [(name, _s, _m)] = [x for x in t.list("packs/")]
    data, _e = t.read(name)
    t.delete(name)
    t.create(name, data[:-10] + bytes(10))
    other_root = a.root.parent / "b"
    from objstore import clone
    with pytest.raises(IntegrityError):
        clone(other_root, target.url, endpoint=target.endpoint, key=a.key(), env=target.env)
    assert not other_root.exists()


def _damage_remote_packs(target) -> list[str]:
    """Flip a byte in the middle of every pack bundle of the remote (folder or bucket)."""
    from objstore.remote.transport import open_transport
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    names = [name for name, _s, _m in t.list("packs/")]
    for name in names:
        data = bytearray(t.read(name)[0])
        data[len(data) // 2] ^= 0xFF
        t.delete(name)
        t.create(name, bytes(data))
    return sorted(n.rsplit("/", 1)[-1] for n in names)


def test_push_repair_replaces_a_damaged_remote_pack(machines, target):
    """Issue 21 (re-attack item 5): a later push left a damaged remote pack as
    it was (this machine already knew the pack), so every clone failed.
    'push --repair' reads back every remote pack, replaces the damaged one
    from this store and deletes it; a store that lacks what was lost says
    which objects, and leaves the damaged pack for a machine that has them."""
    from objstore import IntegrityError, clone, push
    a = machines("a")
    for i in range(3):
        remember(a.store, f"user/k{i}", f"value {i}")
    a.push()
    [bad] = _damage_remote_packs(target)
    remember(a.store, "user/later", "written after the damage")
    with pytest.raises(IntegrityError) as e:            # a plain push sees the changed pack (fix14)
        a.push()                                        # and builds nothing on it
    assert f"packs/{bad}" in str(e.value)
    with pytest.raises(IntegrityError) as e:
        clone(a.root.parent / "b", target.url, endpoint=target.endpoint, key=a.key(), env=target.env)
    assert "mem push --repair" in (e.value.hint or "")
    # a machine without the data cannot mend it: it names what is lost and changes nothing it cannot mend
    from objstore import add_remote, import_sync_key, open_store
    c = open_store(a.root.parent / "c", create=True)
    try:
        import_sync_key(c, a.key())
        spec = add_remote(c, "origin", target.url, endpoint=target.endpoint)
        with pytest.raises(IntegrityError) as e:
            push(c, spec, env=target.env, repair=True)
        assert "mem push --repair" in (e.value.hint or "") and "on a machine that has them" in e.value.hint
    finally:
        c.close()
    res = a.push(repair=True)
    assert res.remote_packs_repaired == [bad] and res.remote_objects_resent == 3 and not res.remote_objects_lost
    b, _r = clone(a.root.parent / "b", target.url, endpoint=target.endpoint, key=a.key(), env=target.env)
    try:
        assert {k: current(b, k).fact.body for k in ("user/k0", "user/k1", "user/k2", "user/later")} == \
            {"user/k0": "value 0", "user/k1": "value 1", "user/k2": "value 2", "user/later": "written after the damage"}
    finally:
        b.close()
    from objstore.remote.transport import open_transport
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    assert bad not in {n.rsplit("/", 1)[-1] for n, _s, _m in t.list("packs/")}
    again = a.push(repair=True)                         # nothing left to mend
    assert again.remote_packs_repaired == [] and again.remote_packs_checked == 2


def test_a_pack_missing_from_the_remote_is_damage_not_an_empty_clone(machines, target):
    """A pack the manifest names but the remote lost: a clone said 'cloned'
    with nothing in it (the missing pack was taken for one a push replaced,
    and the retries ended silently); now exit 13 with the repair hint, and
    'push --repair' sends it again."""
    from objstore import IntegrityError, clone
    from objstore.remote.transport import open_transport
    a = machines("a")
    remember(a.store, "user/k", "v")
    a.push()
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    [name] = [n for n, _s, _m in t.list("packs/")]
    t.delete(name)
    with pytest.raises(IntegrityError) as e:
        clone(a.root.parent / "b", target.url, endpoint=target.endpoint, key=a.key(), env=target.env)
    assert "missing" in str(e.value) and "mem push --repair" in (e.value.hint or "")
    assert a.push(repair=True).remote_packs_repaired == [name.rsplit("/", 1)[-1]]
    b, _r = clone(a.root.parent / "b", target.url, endpoint=target.endpoint, key=a.key(), env=target.env)
    try:
        assert current(b, "user/k").fact.body == "v"
    finally:
        b.close()


def test_s3_unreachable_and_missing_bucket(tmp_path, moto_endpoint):
    from objstore import RemoteUnavailable, open_store, add_remote, push
    from tests.remote.conftest import S3_ENV
    st = open_store(tmp_path / "s", create=True)
    remember(st, "user/k", "v")
    spec = add_remote(st, "dead", "s3://bucket-x/p", endpoint="http://127.0.0.1:9")
    with pytest.raises(RemoteUnavailable, match="does not answer|cannot reach"):
        push(st, spec, env=S3_ENV)
    spec2 = add_remote(st, "nobucket", "s3://no-such-bucket-here/p", endpoint=moto_endpoint)
    with pytest.raises(RemoteUnavailable, match="does not exist"):
        push(st, spec2, env=S3_ENV)
    assert current(st, "user/k").fact.body == "v"
    assert fsck(st).ok
    st.close()


def test_a_read_waits_for_the_manifest_of_a_first_push_in_flight(tmp_path, monkeypatch):
    """CI stop 23: a machine that read a remote between another's first
    pack and its manifest failed ("no manifest yet") instead of waiting
    the moment the manifest takes to follow."""
    from objstore import add_remote, clone, open_store, push
    from objstore.remote.transport import FolderTransport
    st = open_store(tmp_path / "a", create=True)
    remember(st, "user/k", "v")
    (tmp_path / "r").mkdir()
    push(st, add_remote(st, "origin", str(tmp_path / "r"), encrypt=False))
    manifest = tmp_path / "r" / "manifest"
    held = manifest.read_bytes()
    manifest.unlink()
    real_read, misses = FolderTransport.read, []

    def read(self, name):
        try:
            return real_read(self, name)
        except Exception:
            if name == "manifest" and not misses:   # the first push's manifest lands just after this read
                misses.append(name)
                manifest.write_bytes(held)
            raise
    monkeypatch.setattr(FolderTransport, "read", read)
    b, _r = clone(tmp_path / "b", str(tmp_path / "r"), encrypt=False)
    try:
        assert misses and current(b, "user/k").fact.body == "v"
    finally:
        b.close()
        st.close()


def test_four_machines_concurrent_writes(machines):
    n = WRITES
    a = machines("a")
    a.push()
    ms = [a] + [machines(f"m{i}", clone_from=a) for i in range(3)]
    errs = []

    def work(i, m):
        try:
            for j in range(n):
                remember(m.store, f"project/load/m{i}-{j}", f"value {i} {j}")
                if j % 5 == 4:
                    m.push()
            m.push()
        except Exception as e:  # pragma: no cover
            errs.append(repr(e))
    ts = [threading.Thread(target=work, args=(i, m)) for i, m in enumerate(ms)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs
    for m in ms:
        m.pull()
    from objstore import list_keys
    want = {f"project/load/m{i}-{j}" for i in range(4) for j in range(n)}
    for m in ms:
        assert {k for k, _ in list_keys(m.store, "project/load")} == want
        assert fsck(m.store).ok


def test_s3_wrong_credentials(tmp_path):
    """A moto server that checks credentials (INITIAL_NO_AUTH_ACTION_COUNT=0)
    refuses unknown keys with 403: exit 15, the store untouched."""
    pytest.importorskip("obstore")
    pytest.importorskip("moto.server")
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    from objstore import RemoteUnavailable, open_store, add_remote, push
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="0")
    for attempt in range(5):    # a free port may be taken before the server binds it: then another one
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        p = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 90       # moto's imports take seconds on a loaded machine
        up = False
        while p.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/moto-api/", timeout=5):
                    up = True           # (moto's own page: not some other server on the port)
                    break
            except OSError:
                time.sleep(0.1)
        if up:
            break
        p.terminate()
        p.wait(10)
        assert attempt < 4, "moto.server did not start"
    try:
        st = open_store(tmp_path / "s", create=True)
        remember(st, "user/k", "v")
        spec = add_remote(st, "origin", "s3://some-bucket/p", endpoint=f"http://127.0.0.1:{port}")
        with pytest.raises(RemoteUnavailable, match="refused the credentials"):
            push(st, spec, env={"AWS_ACCESS_KEY_ID": "AKIAWRONGWRONGWRONG1", "AWS_SECRET_ACCESS_KEY": "nope",
                                "AWS_REGION": "us-east-1"})
        assert current(st, "user/k").fact.body == "v" and fsck(st).ok
        st.close()
    finally:
        p.terminate()
        p.wait(10)


def test_forget_of_one_version_while_other_side_wrote_on_top(machines, target):
    canary = "canary-ibis-3310"
    a = machines("a")
    for body in ("one", canary, "three"):
        remember(a.store, "project/p/k", body)
    a.push()
    b = machines("b", clone_from=a)
    remember(b.store, "project/p/k", "four on B")
    from objstore import forget
    forget(a.store, what="project/p/k@v2")
    a.push()
    b.push()
    a.pull()
    for m in (a, b):
        assert [v.fact.body for v in versions(m.store, "project/p/k")] == ["four on B", "three", "", "one"]
        assert scan_store(m.root, [canary.encode()]) == []
        assert fsck(m.store).ok
    assert [v.id for v in versions(a.store, "project/p/k")] == [v.id for v in versions(b.store, "project/p/k")]
    assert not any(canary.encode() in x for x in _all_remote_plaintexts(target, a.key()))


def test_bucket_versioning_is_detected(tmp_path, moto_endpoint, invoke, monkeypatch):
    import boto3
    from tests.remote.conftest import S3_ENV, make_bucket
    bucket = make_bucket(moto_endpoint)
    boto3.client("s3", endpoint_url=moto_endpoint, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").put_bucket_versioning(
        Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    for k, v in S3_ENV.items():
        monkeypatch.setenv(k, v)
    a = ["--home", str(tmp_path / "a")]
    invoke(*a, "remember", "user/x", "y")
    invoke(*a, "remote", "add", "origin", f"s3://{bucket}/m", "--endpoint", moto_endpoint)
    r = invoke(*a, "push")
    assert "versioning is on" in r.stderr
    assert invoke(*a, "remote", "show", "--json").json["versioning"] == "Enabled"


def test_local_forget_keeps_the_other_sides_newer_versions(machines, target):
    """B forgot v1's value; A wrote v2 on top meanwhile: B's pull keeps A's v2
    and empties v1 (the remote chain is walked, not dropped)."""
    canary = "canary-gecko-6060"
    a = machines("a")
    remember(a.store, "project/p/k", canary)
    a.push()
    b = machines("b", clone_from=a)
    remember(a.store, "project/p/k", "newer on A")
    a.push()
    from objstore import forget
    forget(b.store, what="project/p/k@v1")   # the only value: the key goes on B
    b.push()
    a.pull()
    for m in (a, b):
        assert [v.fact.body for v in versions(m.store, "project/p/k")] == ["newer on A", ""]
        assert scan_store(m.root, [canary.encode()]) == []
        assert fsck(m.store).ok
    assert not any(canary.encode() in x for x in _all_remote_plaintexts(target, a.key()))
