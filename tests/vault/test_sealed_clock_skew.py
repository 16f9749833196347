"""A sealed key's new version supersedes the one under it whatever the
clocks say (test25 T15; ``objstore.memory.validity``, the rule plain facts
follow too): the sealed chain's current version is the greatest
``valid_from``, so a write after a version from a clock 10 minutes ahead was
never current before."""

from __future__ import annotations

from objstore.core.store import now_ms as real_now
from objstore.vault import chains, identity, sealed as vault


def test_a_sealed_write_on_top_of_a_fast_clocks_version_is_current(store, monkeypatch):
    identity.init_vault(store, "correct horse battery", work_factor=10)
    monkeypatch.setattr(vault, "now_ms", lambda: real_now() + 10 * 60_000)   # the clock the sealed writer reads
    first = vault.remember_sealed(store, "user/pin", "1111-old-pin").version
    monkeypatch.setattr(vault, "now_ms", real_now)                           # stepped back 10 minutes
    second = vault.remember_sealed(store, "user/pin", "2222-new-pin").version
    assert second.sealed.valid_from > first.sealed.valid_from
    cur = chains.current_sealed(chains.sealed_versions(store, "user/pin"))
    assert cur is not None and cur.id == second.id
    ids = identity.open_identity(store, "correct horse battery")
    assert vault.open_text(ids, cur) == "2222-new-pin"
    # an explicit valid_from is stored as given (a backfill does not become current)
    third = vault.remember_sealed(store, "user/pin", "0000-older-pin", valid_from=real_now() - 60_000).version
    assert third.sealed.valid_from < second.sealed.valid_from
    assert chains.current_sealed(chains.sealed_versions(store, "user/pin")).id == second.id
