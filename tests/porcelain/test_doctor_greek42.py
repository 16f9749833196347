"""fresh41 F21: the README dated a behaviour by "session 29", which a user
cannot map to anything.  It now says "a store indexed by a mem from before
2026-12-05 folds Greek only after `mem reindex` (`mem doctor` says so)", and
`mem doctor` does say so: a generation of the stem format written without
Greek folding (GenFormat.greek_fold) is named, and `mem reindex` clears it."""

from __future__ import annotations

from pathlib import Path

from objstore.index import schema
from tests.conftest import REPO


def _old_store(root: Path, monkeypatch) -> None:
    """A store whose index generations are the stem format without Greek
    folding, as a mem from before 2026-12-05 wrote them."""
    from objstore import open_store, remember
    monkeypatch.setitem(schema.FORMATS, "stem", schema.FORMATS["stem"].replace(greek_fold=False))
    s = open_store(root, create=True)
    try:
        remember(s, "project/trip/city", "Αθήνα in May")
        assert not s.index.folds_greek()
    finally:
        s.close()
    monkeypatch.undo()


def test_doctor_names_an_index_without_greek_folding_and_reindex_clears_it(mem, tmp_path, monkeypatch):
    root = tmp_path / "old"
    _old_store(root, monkeypatch)
    r = mem("--home", str(root), "doctor", exit_code=None)
    assert "before Greek accents were folded" in r.stdout + r.stderr, r.stdout + r.stderr
    assert "mem reindex" in r.stdout + r.stderr
    mem("--home", str(root), "reindex")
    r = mem("--home", str(root), "doctor", exit_code=None)
    assert "Greek" not in r.stdout + r.stderr, r.stdout
    assert "project/trip/city" in mem("--home", str(root), "search", "ΑΘΗΝΑ").stdout


def test_readme_dates_old_stores_by_a_date_a_user_can_see_not_a_session():
    text = (REPO / "README.md").read_text()
    assert "before session 2" not in text and "a mem from before\n  2026-12-05 folds Greek" in text
