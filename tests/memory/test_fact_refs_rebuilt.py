"""A fact ref lost with its reflog (a garbage ``refs/packed-facts`` and no
``logs/packed-facts``, or a damaged loose ref file and no reflog) comes
back from the version objects: ``mem fsck --repair`` said "nothing to
repair" and the keys were gone (session 11).  The head is the version no
other version of the key names as parent; when several have no child the
repair picks none and exits 13; what a tombstone forgets stays forgotten
(the rule session refs follow: ``test_packed_sessions_rebuilt``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import gen_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A generated corpus with sub-agent files: their summaries' refs go to refs/packed-facts."""
    return gen_corpus(tmp_path_factory.mktemp("packed-facts") / "projects", "--sessions", "6", "--turns", "80",
                      "--subagent-share", "0.5", "--seed", "5")


def _keys(invoke) -> dict[str, str]:
    return {k["key"]: k["body"] for k in invoke("keys", "--json").json}


def _lose_ref(store_path: Path, key: str) -> None:
    """The loose ref file of ``key`` damaged, and no reflog to restore it."""
    (store_path / "refs" / "facts" / key).write_text("not an id\n")
    shutil.rmtree(store_path / "logs")


def test_garbage_packed_facts_without_reflog_is_rebuilt_from_the_versions(mem, invoke, store_path, corpus):
    invoke("import", "claude-code", str(corpus))
    packed = store_path / "refs" / "packed-facts"
    names = [ln.split(" ", 1)[1] for ln in packed.read_text().splitlines()]
    assert len(names) >= 2
    before = _keys(invoke)
    packed.write_text("garbage\n")
    (store_path / "logs" / "packed-facts").unlink()
    assert len(_keys(invoke)) == len(before) - len(names)
    r = mem("fsck", "--repair")                       # a real process
    assert r.stdout.count("from its version objects") == len(names) and "nothing to repair" not in r.stdout
    assert _keys(invoke) == before
    assert invoke("fsck").stdout.startswith("ok:")
    invoke("gc", "--prune=now")
    assert _keys(invoke) == before


def test_a_damaged_loose_fact_ref_is_rebuilt_at_its_newest_version(invoke, store_path):
    for v in ("tabs", "spaces", "two spaces"):
        invoke("remember", "user/indent", v)
    _lose_ref(store_path, "user/indent")
    invoke("gc", "--prune=now", exit_code=13)         # it would delete the versions
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["rebuilt_refs"] == ["facts/user/indent"] and not r["repair"]["dropped_refs"]
    assert invoke("get", "user/indent").stdout.strip() == "two spaces"
    assert len(invoke("log", "user/indent", "--json").json) == 3


def test_a_forgotten_version_and_a_forgotten_key_stay_forgotten(invoke, store_path):
    invoke("remember", "user/db", "postgres hunter2")
    invoke("remember", "user/db", "postgres")
    invoke("remember", "user/token", "zebrafrog-123")
    saved = store_path.parent / "objects-before-forget"
    shutil.copytree(store_path / "objects", saved)
    invoke("forget", "user/db@v1", "--yes")
    invoke("forget", "user/token", "--yes")
    shutil.copytree(saved, store_path / "objects", dirs_exist_ok=True)   # the old history is back (an old copy)
    _lose_ref(store_path, "user/db")
    invoke("fsck", "--repair")
    assert _keys(invoke) == {"user/db": "postgres"}   # the rewritten chain, not the one holding the old value
    assert [v["body"] for v in invoke("log", "user/db", "--json").json] == ["postgres", ""]
    assert "hunter2" not in invoke("log", "user/db").stdout
    invoke("gc", "--prune=now")
    assert invoke("fsck").stdout.startswith("ok:")


def test_two_heads_pick_none_and_exit_13(invoke, store_path, tmp_path):
    """Two versions on one parent (objects of another copy of the store
    copied in): which is current is not the repair's to guess."""
    invoke("remember", "user/editor", "vim")
    other = tmp_path / "other"
    shutil.copytree(store_path, other)
    invoke("remember", "user/editor", "emacs")
    invoke("--home", str(other), "remember", "user/editor", "helix")
    shutil.copytree(other / "objects", store_path / "objects", dirs_exist_ok=True)
    _lose_ref(store_path, "user/editor")
    r = invoke("fsck", "--repair", "--json", exit_code=13).json
    assert not r["ok"] and list(r["repair"]["unresolved_refs"]) == ["facts/user/editor"]
    assert len(r["repair"]["unresolved_refs"]["facts/user/editor"]) == 2
    assert "user/editor" not in _keys(invoke)
    moves = invoke("reflog", "user/editor", "--json").json    # the candidates are named, so gc keeps them
    heads = {m["new"] for m in moves} - {None}
    assert heads == set(r["repair"]["unresolved_refs"]["facts/user/editor"])
    invoke("gc", "--prune=now")
    for h in heads:
        assert invoke("cat-object", h).stdout
    invoke("remember", "user/editor", "helix")
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_rejected_value_the_person_stated_later_is_rebuilt(invoke, store_path):
    """A rejection refuses a lower-trust value; it forgets nothing: the key
    whose current value the person stated after rejecting it comes back."""
    invoke("remember", "user/shell", "zsh")
    invoke("remember", "--trust", "derived", "user/shell", "fish")
    [item] = invoke("queue", "--json").json
    invoke("queue", "reject", item["id"][:12])
    invoke("remember", "user/shell", "fish")
    _lose_ref(store_path, "user/shell")
    invoke("fsck", "--repair")
    assert _keys(invoke) == {"user/shell": "fish"}
