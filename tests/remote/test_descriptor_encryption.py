"""fix16b: a remote's ``mem-remote`` descriptor says whether it is encrypted,
and anyone who can write the folder or bucket can replace it.  A store
trusted it over what it recorded for the remote (``remotes.json``
``encrypt``): a descriptor replaced with one saying "none" made the next
push send every value in the clear (and a pull take unauthenticated data);
one saying "encrypted" for a remote added with --no-encrypt hid it from the
lost-sync-key check of ``mem fsck``.  Now both are refused, exit 13, and a
clone records what the remote is.  Folder and S3 (moto on loopback)."""

from __future__ import annotations

import cbor2
import pytest

from objstore import IntegrityError, add_remote, get_remote, remember
from objstore.remote.transport import open_transport


def _t(target):
    return open_transport(target.url, endpoint=target.endpoint, env=target.env)


def _replace_descriptor(target, encryption: str, recipient: str = "") -> None:
    t = _t(target)
    d = cbor2.loads(t.read("mem-remote")[0])
    d["encryption"], d["recipient"] = encryption, recipient
    t.delete("mem-remote")
    t.create("mem-remote", cbor2.dumps(d, canonical=True))


def _remote_files(target) -> dict[str, bytes]:
    t = _t(target)
    return {n: t.read(n)[0] for n, _s, _m in t.list("")}


def test_a_descriptor_saying_not_encrypted_is_refused(machines, target):
    a = machines("a")
    remember(a.store, "user/k", "secret value one")
    a.push()
    _replace_descriptor(target, "none")
    before = _remote_files(target)
    remember(a.store, "user/k2", "secret value two")
    with pytest.raises(IntegrityError) as e:
        a.push()
    assert "says it is not encrypted" in str(e.value) and "--no-encrypt" in (e.value.hint or "")
    with pytest.raises(IntegrityError):
        a.pull()
    assert _remote_files(target) == before                 # nothing sent, in the clear or not
    assert not any(b"secret value two" in v for v in before.values())
    # a store that never synced with it, holding no key: its first push would be in the clear
    fresh = machines("fresh")
    remember(fresh.store, "user/x", "another secret")
    with pytest.raises(IntegrityError):
        fresh.push()
    assert _remote_files(target) == before


def test_a_descriptor_saying_encrypted_to_a_no_encrypt_remote_is_refused(machines, target):
    a = machines("a")
    remember(a.store, "user/k", "v")
    a.push()
    b = machines("b", clone_from=a)
    assert get_remote(b.store, "origin").encrypt is True
    from objstore import remove_remote
    remove_remote(b.store, "origin")
    b.spec = add_remote(b.store, "origin", target.url, endpoint=target.endpoint, encrypt=False)
    with pytest.raises(IntegrityError) as e:
        b.pull()
    assert "says it is encrypted" in str(e.value)


def test_a_clone_records_a_remote_in_the_clear_as_it_is(machines, target):
    a = machines("a", encrypt=False)
    remember(a.store, "user/k", "v")
    a.push()
    from objstore import clone
    from objstore.vault import age
    key, _recipient = age.generate_x25519()      # the clone holds a sync key (for other remotes)
    st, _r = clone(a.root.parent / "c", target.url, endpoint=target.endpoint, key=key, env=target.env)
    try:
        assert get_remote(st, "origin").encrypt is False
        from objstore import pull
        remember(a.store, "user/k2", "v2")
        a.push()
        assert pull(st, get_remote(st, "origin"), env=target.env).refs_updated
    finally:
        st.close()
