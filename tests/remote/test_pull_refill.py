"""A ``mem pull`` of a session that ``mem fsck --repair`` mended puts the
remote's turns in the places of the "lost" placeholders (session 11: a
160-turn session became 204 turns, the remote's turns appended beside the
placeholders).  The rule is ``mem import --reread``'s
(``objstore.memory.refill``): the remote's chain is read as the transcript.

Each test imports a real transcript, pushes it to a folder remote, flips a
byte in a pack block, repairs and pulls, then checks what ``mem show``,
``mem search`` and ``mem fsck`` say."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.memory.test_refill import N, SID, _as_version_2, _flip_block_of, _flip_entries, _texts, _transcript


@pytest.fixture
def pushed(invoke, tmp_path, store_path) -> Path:
    """A 160-turn session imported, pushed to a folder remote, packed."""
    src = tmp_path / "projects"
    _transcript(src / "-home-dev-acme-api" / f"{SID}.jsonl", _texts())
    remote = tmp_path / "remote"
    remote.mkdir()
    invoke("import", "claude-code", str(src))
    invoke("remote", "add", "origin", str(remote), "--no-encrypt")
    invoke("push")
    invoke("gc", "--prune=now")
    return remote


def _turns(invoke) -> list[dict]:
    return invoke("show", SID, "--json").json["turns"]


def _damage_and_repair(invoke, store_path: Path, at: str | list[str]) -> list[dict]:
    if isinstance(at, list):   # those entries of a version-2 pack
        _as_version_2(store_path)
        _flip_entries(store_path, at)
    else:                      # the second half of the pack block that holds it
        _flip_block_of(store_path, at, 0.5)
    assert invoke("fsck", "--repair", "--json").json["repair"]["stubs"] > 0
    mended = _turns(invoke)
    assert len(mended) == N and any(t["source"].startswith("lost:") for t in mended)
    return mended


def _hits(invoke, word: str) -> list[str]:
    return [h["id"] for h in invoke("search", word, "--json").json if h.get("kind") == "turn"]


def test_pull_fills_the_placeholders_with_the_remote_turns(invoke, store_path, pushed):
    before = _turns(invoke)
    mended = _damage_and_repair(invoke, store_path, before[N // 3]["id"])
    lost = [t["seq"] for t in mended if t["source"].startswith("lost:")]

    r = invoke("pull", "--json").json
    assert r["turns_refilled"] == len(lost) and r["gaps_verified"] == 1
    after = _turns(invoke)
    # no turn twice, no placeholder left: the ids from before the damage
    assert [(t["seq"], t["source"], t["text"], t["id"]) for t in after] == \
           [(t["seq"], t["source"], t["text"], t["id"]) for t in before]
    assert [s["turns"] for s in invoke("sessions", "--json").json] == [N]
    assert "(lost" not in invoke("show", SID).stdout
    assert invoke("fsck").stdout.splitlines()[-1].startswith("ok:")
    # a refilled turn is found, and a turn above the gap once, by its restored id
    assert _hits(invoke, f"marker{lost[0]}x") == [before[lost[0]]["id"]]
    assert _hits(invoke, f"marker{lost[-1] + 1}x") == [before[lost[-1] + 1]["id"]]
    assert "lost turns put back in their places" not in invoke("pull").stdout   # nothing left to fill
    assert _turns(invoke) == after
    invoke("gc", "--prune=now")
    assert invoke("fsck").stdout.splitlines()[-1].startswith("ok:")


def test_a_turn_forgotten_here_stays_forgotten_and_the_gap_verifies(invoke, store_path, pushed):
    """The remote still holds the text of a turn forgotten here after the
    push: its tombstone wins, and since the merge empties it with the
    tombstone's time (what the forget wrote) the run still verifies."""
    k = N // 3
    invoke("forget", _turns(invoke)[k]["id"], "--yes")
    invoke("gc", "--prune=now")
    before = _turns(invoke)
    assert before[k]["text"] == ""
    mended = _damage_and_repair(invoke, store_path, [before[i]["id"] for i in (k - 1, k, k + 1)])
    assert [t["source"].startswith("lost:") for t in mended[k - 2:k + 3]] == [False, True, True, True, False]

    r = invoke("pull", "--json").json
    assert r["turns_refilled"] > 0 and r["gaps_verified"] == 1
    after = _turns(invoke)
    assert [(t["id"], t["text"]) for t in after] == [(t["id"], t["text"]) for t in before]
    assert _hits(invoke, f"marker{k}x") == [] and f"marker{k}x" not in invoke("show", SID).stdout
    assert invoke("fsck").stdout.splitlines()[-1].startswith("ok:")


def test_the_merge_fills_either_side_alike(invoke, store_path, pushed):
    """``merge_chain`` is symmetric: the placeholders are filled whether
    the mended chain is the local or the remote one, with the same head."""
    from objstore import open_store
    from objstore.core.objects import Turn
    from objstore.core.refs import session_ref
    from objstore.remote.fetch import read_chain
    from objstore.remote.merge import ForgetIndex, merge_chain
    st = open_store(store_path)
    try:
        whole = read_chain(st, st.refs.read(session_ref(SID)), Turn)
    finally:
        st.close()
    _damage_and_repair(invoke, store_path, whole[N // 2][0])
    st = open_store(store_path)
    try:
        mended = read_chain(st, st.refs.read(session_ref(SID)), Turn)
    finally:
        st.close()
    a = merge_chain(mended, whole, ForgetIndex(), "turn")
    b = merge_chain(whole, mended, ForgetIndex(), "turn")
    assert a.head == b.head == whole[-1][0] and a.final_ids == b.final_ids == {o for o, _t in whole}
    assert a.refilled == b.refilled > 0 and a.gaps_verified == b.gaps_verified == 1
    # a remote whose chain does not fit the gap (a turn of it missing) leaves the placeholders
    gap = [i for i, (_o, t) in enumerate(mended) if t.source.startswith("lost:")]
    c = merge_chain(mended, whole[:gap[0]] + whole[gap[0] + 1:], ForgetIndex(), "turn")
    assert c.refilled == 0
