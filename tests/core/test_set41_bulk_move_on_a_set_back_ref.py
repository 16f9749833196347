"""A bulk move (``Store.update_refs``: an import's sub-agent rollups, a
batch of remembers) went around the set-back refusal ``update_ref`` makes
(test40 T7/T16/T17's kind): a move of a set-back fact ref among several
reused a version number and dropped the newest value.  Now the whole bulk
move refuses (exit 13) with nothing moved.  A real store on disk."""

from __future__ import annotations

import shutil

import pytest

from objstore.core.errors import IntegrityError
from objstore.core.refs import fact_ref
from objstore.memory.facts import remember, versions


def test_a_bulk_move_of_a_set_back_ref_refuses_and_moves_nothing(store, tmp_path):
    ref = store.refs.path(fact_ref("project/a/db"))
    remember(store, "project/a/db", "pg 15")
    shutil.copy(ref, tmp_path / "old")
    remember(store, "project/a/db", "pg 16")
    remember(store, "project/b/x", "x1")
    shutil.copy(tmp_path / "old", ref)
    v1 = store.refs.read(fact_ref("project/a/db"))
    x1 = store.refs.read(fact_ref("project/b/x"))
    other = versions(store, "project/a/db")[0].id   # any id: the move must not be made
    with pytest.raises(IntegrityError, match="set back"):
        store.update_refs([(fact_ref("project/b/x"), x1, other), (fact_ref("project/a/db"), v1, other)], "import")
    assert store.refs.read(fact_ref("project/b/x")) == x1 and store.refs.read(fact_ref("project/a/db")) == v1
