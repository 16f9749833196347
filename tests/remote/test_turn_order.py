"""A session's turn order is its chain, never its clock (lane order12; the
fresh tester of session 11, D6): a transcript's timestamps may step back
(a clock step, a resumed session), and a push after ``mem forget`` of one
turn merged the rewritten chain with the remote's by timestamp, so the
turns came out re-sorted with their seq numbers rewritten.  After that,
pack damage + ``fsck --repair`` + ``import --reread`` appended the lost
turns (6 -> 10 turns) instead of filling their places, and every pull
re-sorted again.

The end-to-end tests run real ``mem`` processes on a folder remote; the
library test runs the same forget/push/pull on a folder and on S3 (moto),
and the unit tests pin ``merge_chain``'s order rule for turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from objstore.core.objects import Turn
from objstore.remote.merge import ForgetIndex, merge_chain, turn_identity
from tests.memory.test_refill import _as_version_2, _flip_entries

PERSON = {"MEM_AGENT": "0"}
SID = "0e4d1c2a-5b6f-4a7e-8c9d-00000000c10c"
#: second of each record's timestamp: turns 5 and 6 step back (5 before every other, 6 before 4)
CLOCK = [10, 11, 12, 13, 14, 2, 13, 17]


def _transcript(path: Path) -> None:
    """A Claude Code transcript of ``len(CLOCK)`` records whose timestamps step back."""
    lines, parent = [], None
    for i, sec in enumerate(CLOCK):
        role = "user" if i % 2 == 0 else "assistant"
        text = f"turn {i} marker{i}q about the staging deploy"
        uid = f"{SID}-{i:04d}"
        lines.append(json.dumps({
            "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/webapp",
            "sessionId": SID, "version": "2.1.42", "timestamp": f"2026-11-01T10:00:{sec:02d}.000Z",
            "type": role, "uuid": uid,
            "message": {"role": role, "content": text} if role == "user" else
            {"id": f"msg_{i}", "role": "assistant", "model": "m", "type": "message",
             "content": [{"type": "text", "text": text}]}}))
        parent = uid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def _turns(mem, home: Path) -> list[tuple]:
    """``(seq, source, text, id)`` of the session's turns, in order."""
    doc = json.loads(mem("--home", str(home), "show", SID, "--json").stdout)
    return [(t["seq"], t["source"], t["text"], t["id"]) for t in doc["turns"]]


def _order(turns: list[tuple]) -> list[int]:
    """The transcript index of each turn (from its text; -1 when emptied)."""
    return [int(t[2].split()[1]) if t[2] else -1 for t in turns]


@pytest.fixture
def pushed(mem, tmp_path):
    """The session imported and pushed to a folder remote: (home, remote, transcript folder)."""
    home, remote, src = tmp_path / "a", tmp_path / "remote", tmp_path / "projects"
    remote.mkdir()
    _transcript(src / "-home-dev-webapp" / f"{SID}.jsonl")
    mem("--home", str(home), "import", "claude-code", str(src), env=PERSON)
    mem("--home", str(home), "remote", "add", "origin", str(remote), "--no-encrypt", env=PERSON)
    mem("--home", str(home), "push", env=PERSON)
    return home, remote, src


def _forget_turn(mem, home: Path, k: int) -> list[tuple]:
    before = _turns(mem, home)
    assert _order(before) == list(range(len(CLOCK)))
    mem("--home", str(home), "forget", before[k][3], "--yes", env=PERSON)
    after = _turns(mem, home)
    # forget keeps the order: the turn stays in its place, emptied; seq unchanged
    assert [t[:2] for t in after] == [t[:2] for t in before] and after[k][2] == ""
    return after


def test_a_push_after_forgetting_one_turn_keeps_the_order(mem, pushed, tmp_path):
    home, remote, _src = pushed
    forgot = _forget_turn(mem, home, 3)
    r = mem("--home", str(home), "push", env=PERSON)
    assert "merged" not in r.stdout, r.stdout          # the remote's chain is this one, forgotten
    assert _turns(mem, home) == forgot
    # another machine gets the same chain: same order, same seq, same ids
    other = tmp_path / "b"
    mem("--home", str(other), "clone", str(remote), env=PERSON)
    assert _turns(mem, other) == forgot
    assert mem("--home", str(other), "pull", env=PERSON).stdout.count("merged") == 0
    assert _turns(mem, other) == forgot


def test_a_pull_into_a_machine_that_still_has_the_turn_keeps_the_order(mem, pushed, tmp_path):
    """The other direction: a clone made before the forget pulls it."""
    home, remote, _src = pushed
    other = tmp_path / "b"
    mem("--home", str(other), "clone", str(remote), env=PERSON)
    forgot = _forget_turn(mem, home, 4)
    mem("--home", str(home), "push", env=PERSON)
    mem("--home", str(other), "pull", env=PERSON)
    assert _turns(mem, other) == forgot
    assert mem("--home", str(other), "fsck").stdout.splitlines()[-1].startswith("ok:")


def test_after_the_forget_reread_and_pull_refill_in_place(mem, pushed, store_path):
    """D6b: pack damage + ``fsck --repair`` + ``import --reread`` after the
    forget and push fills the placeholders (no turn appended), and a pull
    after that changes nothing."""
    home, _remote, src = pushed
    forgot = _forget_turn(mem, home, 3)
    mem("--home", str(home), "push", env=PERSON)
    mem("--home", str(home), "gc", "--prune=now", env=PERSON)
    _as_version_2(home)                                   # one object lost per flipped entry
    _flip_entries(home, [forgot[i][3] for i in (4, 5, 6)])
    mem("--home", str(home), "fsck", "--repair", env=PERSON)
    mended = _turns(mem, home)
    assert [t[1].startswith("lost:") for t in mended] == [i in (4, 5, 6) for i in range(len(CLOCK))]
    mem("--home", str(home), "import", "claude-code", "--reread", str(src), env=PERSON)
    assert _turns(mem, home) == forgot
    mem("--home", str(home), "pull", env=PERSON)
    assert _turns(mem, home) == forgot
    assert mem("--home", str(home), "fsck").stdout.splitlines()[-1].startswith("ok:")


def test_forget_push_pull_keep_the_order_on_folder_and_s3(machines, tmp_path):
    """The same through the library, on a folder and on S3 (moto)."""
    from objstore import forget, import_transcripts, session_turns
    _transcript(tmp_path / "projects" / "-home-dev-webapp" / f"{SID}.jsonl")
    a = machines("a")
    import_transcripts(a.store, "claude-code", [tmp_path / "projects"], workers=0)
    a.push()
    b = machines("b", clone_from=a)
    ids = [t.id for t in session_turns(a.store, SID)]
    forget(a.store, what=ids[3])
    want = [(t.turn.seq, t.turn.source, t.turn.text) for t in session_turns(a.store, SID)]
    assert [s for s, _src, _t in want] == list(range(len(CLOCK))) and want[3][2] == ""
    a.push()
    b.pull()
    for m in (a, b):
        assert [(t.turn.seq, t.turn.source, t.turn.text) for t in session_turns(m.store, SID)] == want


# -- merge_chain's order for turns -----------------------------------------------------------

def _chain(spec: list[tuple[str, int]], session: str = "s1") -> list[tuple[str, Turn]]:
    """``[(source, timestamp)]`` -> a linked chain ``[(id, Turn)]``."""
    from objstore.core.codec import encode
    from objstore.remote.merge import _oid
    out, parent = [], None
    for seq, (src, ts) in enumerate(spec):
        t = Turn(session=session, seq=seq, role="user", text=f"text of {src}", timestamp=ts, parent=parent,
                 source=src, harness="claude-code", cwd="/w", project="w")
        parent = _oid(encode(t))
        out.append((parent, t))
    return out


def _sources(out, local, remote) -> list[str]:
    chain = {**dict(local), **dict(remote), **dict(out.new_objects)}
    walk, oid = [], out.head
    while oid is not None:
        walk.append(chain[oid])
        oid = walk[-1].parent
    walk.reverse()
    assert [t.seq for t in walk] == list(range(len(walk)))
    return [t.source for t in walk]


def test_merge_keeps_each_tail_in_chain_order_and_is_symmetric():
    base = [("a", 10), ("b", 11), ("c", 12)]
    local = _chain(base + [("d", 14), ("e", 2), ("f", 13)])
    remote = _chain(base + [("d", 14), ("x", 1), ("e", 2)])
    one = merge_chain(local, remote, ForgetIndex(), "turn")
    two = merge_chain(remote, local, ForgetIndex(), "turn")
    assert one.head == two.head
    got = _sources(one, local, remote)
    assert got == ["a", "b", "c", "d", "x", "e", "f"]     # d before x and e though its clock is later
    # the same turns in the same order on both sides, one rewritten (forgotten): nothing moves
    forgot = [(i, t) for i, t in local]
    t3 = forgot[3][1].replace(text="", forgotten=99)
    relinked = _chain([("a", 10), ("b", 11), ("c", 12)])
    from objstore.core.codec import encode
    from objstore.remote.merge import _oid
    chain, parent = list(relinked), relinked[-1][0]
    for _i, t in [(None, t3)] + forgot[4:]:
        t = t.replace(parent=parent)
        parent = _oid(encode(t))
        chain.append((parent, t))
    out = merge_chain(chain, local, ForgetIndex(), "turn")
    assert out.head == chain[-1][0] and _sources(out, chain, local) == ["a", "b", "c", "d", "e", "f"]
    # forgotten here while the other side captured more of the session: its new turns follow
    longer = _chain(base + [("d", 14), ("e", 2), ("f", 13), ("g", 1), ("h", 0)])
    one, two = merge_chain(chain, longer, ForgetIndex(), "turn"), merge_chain(longer, chain, ForgetIndex(), "turn")
    assert one.head == two.head and _sources(one, chain, longer) == ["a", "b", "c", "d", "e", "f", "g", "h"]
    assert chain[-1][0] in one.final_ids      # the forgotten chain is kept as it is, the new turns onto it


def test_merge_of_tails_that_disagree_on_the_order_is_deterministic():
    """Two chains holding the same turns in opposite orders (a remote a
    timestamp-sorting version wrote): one result, whichever side is local."""
    base = [("a", 10)]
    local = _chain(base + [("p", 5), ("q", 3), ("r", 4)])
    remote = _chain(base + [("r", 4), ("q", 3), ("p", 5)])
    one = merge_chain(local, remote, ForgetIndex(), "turn")
    two = merge_chain(remote, local, ForgetIndex(), "turn")
    assert one.head == two.head
    assert sorted(_sources(one, local, remote)) == ["a", "p", "q", "r"]
    assert len({turn_identity(t) for _i, t in local}) == 4
