"""A push that purges its snapshots (``mem backup`` after a forget) reads
remote packs for the snapshot chains this store no longer holds.  When
another machine's push replaced such a pack after this push's fetch, the
read meets a pack that is gone and no longer named (``RefConflict``):
the push must start again from the manifest, as it does when that happens
during the fetch, not fail.  The interleaving is forced: the pack read
made by the snapshot purge is answered as a vanished pack once."""

from __future__ import annotations

from objstore import add_remote, backup, forget, open_store, remember
from objstore.core.errors import RefConflict
from objstore.remote import sync


def test_a_pack_replaced_during_the_snapshot_purge_makes_the_push_start_again(tmp_path, monkeypatch):
    (tmp_path / "remote").mkdir()
    st = open_store(tmp_path / "a", create=True)
    try:
        remember(st, "user/pin", "canary-okapi-5521")
        remember(st, "user/other", "keep me")
        spec = add_remote(st, "origin", str(tmp_path / "remote"), encrypt=False)
        backup(st, spec)
        forget(st, what="user/pin")
        purging, vanished = [], []
        real_purge, real_pack = sync._purge_snapshot, sync._Remote.pack

        def purge_snapshot(*a, **kw):
            purging.append(True)
            return real_purge(*a, **kw)

        def pack(self, name):
            if purging and not vanished:   # another push replaced it since this push's fetch
                vanished.append(name)
                raise RefConflict("remote pack", name, None)
            return real_pack(self, name)
        monkeypatch.setattr(sync, "_purge_snapshot", purge_snapshot)
        monkeypatch.setattr(sync._Remote, "pack", pack)
        res = backup(st, spec)
        assert vanished and res.attempts >= 2
        for f in (tmp_path / "remote").rglob("*"):
            if f.is_file():
                assert b"canary-okapi-5521" not in f.read_bytes()
    finally:
        st.close()
