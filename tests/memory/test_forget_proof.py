"""The proof that forget means gone, for every selector: plant a unique
canary through every path that can hold it, forget, gc, and find it nowhere
(raw bytes, zlib-decompressed objects, pack entries, the index's term
dictionaries, logs, caches); fsck clean; everything else intact; and
re-import, reindex or a shrunk transcript do not bring it back."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import pytest

from objstore.memory import facts
from objstore.memory.forget import forget, scan_store
from objstore.core.fsck import fsck
from objstore.core.gc import gc
from objstore.retrieval.search import reindex, search
from objstore.capture.importer import import_claude_code
from objstore.memory.sessions import session_turns, walk_turns
from objstore.core.store import Store
from objstore.memory.opening import open_store
from tests.conftest import SHARED

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))
CANARY = "Quokkacanary-4471 Zebrine"
NEEDLES = [b"Quokkacanary-4471", b"quokkacanary-4471", b"QUOKKACANARY-4471", b"Quokkacanary"]


def _transcript_sources() -> list[Path]:
    out = [next(SAMPLE.glob("*/5f0c9a52-*.jsonl"))]
    real = SHARED / "data" / "transcripts" / "claude-code-log" / "projects" / "-experiments-ideas"
    if real.exists():
        out.append(next(real.glob("*.jsonl")))
    return out


def _plant_in_transcript(src: Path, dest_dir: Path) -> Path:
    """Copy a real transcript and put the canary inside one user prompt (mid-text)."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / src.name
    lines = src.read_bytes().splitlines(keepends=True)
    for i, line in enumerate(lines):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        msg = rec.get("message") if isinstance(rec, dict) else None
        if rec.get("type") == "user" and isinstance(msg, dict) and isinstance(msg.get("content"), str) \
                and not rec.get("isMeta"):
            msg["content"] = msg["content"] + f" and the staging host is {CANARY} ok"
            lines[i] = (json.dumps(rec) + "\n").encode()
            break
    else:
        raise AssertionError("no user prompt to plant in")
    dest.write_bytes(b"".join(lines))
    return dest


def _snapshot(store: Store) -> dict:
    """Every fact version and turn reachable now, by ref: bodies/texts and fields (not ids)."""
    snap = {}
    for key, head in facts.list_keys(store):
        snap["facts/" + key] = [(v.fact.version, v.fact.body, v.fact.forgotten > 0) for v in facts.walk(store, head)]
    for name, head in store.refs.iter("sessions"):
        snap[name] = [(t.turn.seq, t.turn.role, t.turn.text, t.turn.source) for t in walk_turns(store, head)]
    return snap


def _build(tmp_path: Path, src: Path):
    store = open_store(tmp_path / "store", create=True)
    tdir = tmp_path / "transcripts"
    planted = _plant_in_transcript(src, tdir)
    import_claude_code(store, [planted])
    facts.remember(store, "project/p/other", "a value that must survive")
    facts.remember(store, "project/p/token", f"old token {CANARY}")
    facts.remember(store, "project/p/token", f"new token {CANARY} rotated")
    facts.remember(store, "project/p/token", "token moved to the vault")
    gc(store, grace_s=0)  # everything packed
    facts.remember(store, "project/p/token2", f"loose copy {CANARY}")  # a loose object with a reflog entry
    hist = store.root / "cache" / "shell-history"
    hist.parent.mkdir(parents=True, exist_ok=True)
    hist.write_text(f"search {CANARY}\nlog project/p/other\n")
    (store.root / "logs" / "hooks.log").write_text(f"2026-01-01 UserPromptSubmit error mentioning {CANARY}\n"
                                                     "2026-01-01 Stop ok\n")
    assert scan_store(store.root, NEEDLES)
    assert search(store, "Quokkacanary")
    return store, planted


def _sid(store: Store, text: str) -> str:
    for name, head in store.refs.iter("sessions"):
        if any(text in t.turn.text for t in walk_turns(store, head)):
            return name[len("sessions/"):]
    raise AssertionError("no session holds it")


def _assert_doc_stores_clean(store: Store) -> None:
    """Tantivy's doc stores are LZ4-compressed: decode every one and look inside."""
    from tests.index.test_searchindex import decode_store
    stores = list((store.root / "index").rglob("*.store"))
    assert stores
    decoded = [decode_store(p) for p in stores]
    assert any(b"project/p/other" in d for d in decoded)  # the decoder does see stored fields
    for p, data in zip(stores, decoded):
        assert not any(n in data for n in NEEDLES), p


def _index_turn_ids(store: Store) -> set[str]:
    """The first 16 bytes (32 hex) of every turn id the turns index holds
    physically (deleted documents too): all a ``prefix_id`` generation holds."""
    from tests.index.test_searchindex import physical_turn_ids
    ids = {i[:32] for i in physical_turn_ids(store.root / "index")}
    assert ids   # surviving turns are seen: the check can fail
    return ids


def _assert_gone(store: Store, planted: Path) -> None:
    gc(store, grace_s=0)
    assert scan_store(store.root, NEEDLES) == []
    _assert_doc_stores_clean(store)
    assert store.index.term_doc_freq(CANARY) == {"quokkacanary": 0, "4471": 0, "zebrine": 0}
    assert search(store, "Quokkacanary") == []
    rep = fsck(store)
    assert rep.ok, rep.problems
    # no resurrection: the same transcript again, a shrunk copy, a reindex
    import_claude_code(store, [planted])
    shrunk = planted.parent / "shrunk" / planted.name
    shrunk.parent.mkdir()
    lines = planted.read_bytes().splitlines(keepends=True)
    shrunk.write_bytes(b"".join(lines[: max(3, len(lines) // 2)] + [l for l in lines if b"Quokkacanary" in l]))
    import_claude_code(store, [shrunk])
    reindex(store)
    gc(store, grace_s=0)
    assert scan_store(store.root, NEEDLES) == []
    assert search(store, "Quokkacanary") == []
    assert fsck(store).ok


@pytest.mark.parametrize("src", _transcript_sources(), ids=lambda p: p.parent.name)
def test_match_removes_every_copy(tmp_path, src):
    store, planted = _build(tmp_path, src)
    before = _snapshot(store)
    r = forget(store, match="quokkacanary-4471   zebrine")
    assert r.plan.counts()["turns"] == 1 and r.plan.counts()["versions"] == 3
    assert not r.index_problems
    after = _snapshot(store)
    # every other fact and turn is still there, unchanged
    assert after["facts/project/p/other"] == before["facts/project/p/other"]
    assert "facts/project/p/token2" not in after  # its only value held the canary
    tok = after["facts/project/p/token"]
    assert [(v, body, gone) for v, body, gone in tok] == [
        (3, "token moved to the vault", False), (2, "", True), (1, "", True)]
    sid = _sid_of(before)
    old_turns, new_turns = before[sid], after[sid]
    assert len(old_turns) == len(new_turns)
    changed = [(o, n) for o, n in zip(old_turns, new_turns) if o != n]
    assert len(changed) == 1 and CANARY in changed[0][0][2] and changed[0][1][2] == ""
    assert facts.current(store, "project/p/token").fact.body == "token moved to the vault"
    _assert_gone(store, planted)
    # the forgotten turn keeps its place, marked
    turns = session_turns(store, sid[len("sessions/"):])
    assert sum(1 for t in turns if t.turn.forgotten) == 1


def _sid_of(snap: dict) -> str:
    return next(k for k, v in snap.items() if k.startswith("sessions/") and any(CANARY in t[2] for t in v))


def test_key_selector(tmp_path):
    store, planted = _build(tmp_path, _transcript_sources()[0])
    forget(store, what="project/p/token")
    forget(store, what="project/p/token2")
    sid = _sid(store, CANARY)
    forget(store, what=next(t.id for t in session_turns(store, sid) if CANARY in t.turn.text))  # ID of a turn
    assert facts.current(store, "project/p/other").fact.body == "a value that must survive"
    _assert_gone(store, planted)


def test_version_selector_rewrites_later_versions(tmp_path):
    store, planted = _build(tmp_path, _transcript_sources()[0])
    chain = facts.versions(store, "project/p/token")
    r = forget(store, what="project/p/token@v2")
    assert r.rewritten == ["facts/project/p/token"]
    new = facts.versions(store, "project/p/token")
    assert [v.fact.version for v in new] == [3, 2, 1]
    assert new[1].fact.body == "" and new[1].fact.forgotten
    assert new[0].id != chain[0].id and new[2].id == chain[2].id  # v3 rewritten, v1 untouched
    assert new[0].fact.parent == new[1].id
    assert CANARY in new[2].fact.body  # v1 was not selected
    log = store.reflog.read("facts/project/p/token")   # kept on the new ids (session 21), then the rewrite
    assert [e.new for e in log] == [v.id for v in reversed(new)] + [new[0].id] and log[-1].old is None
    assert not {x for e in log for x in (e.old, e.new)} & {v.id for v in chain[:2]}   # no removed id


def test_session_selector(tmp_path):
    store, planted = _build(tmp_path, _transcript_sources()[0])
    sid = _sid(store, CANARY)
    forget(store, session=sid)
    assert store.refs.read("sessions/" + sid) is None
    forget(store, match="Quokkacanary-4471")  # the facts too
    _assert_gone(store, planted)
    import_claude_code(store, [planted])
    assert store.refs.read("sessions/" + sid) is None  # a forgotten session is not re-created


def test_match_needs_three_chars_and_dry_run_changes_nothing(tmp_path):
    from objstore.core.errors import InvalidInput
    store, _planted = _build(tmp_path, _transcript_sources()[0])
    with pytest.raises(InvalidInput):
        forget(store, match=" a  ")
    snap = _snapshot(store)
    r = forget(store, match="quokkacanary", dry_run=True)
    assert r.plan.counts()["versions"] == 3 and _snapshot(store) == snap


def test_cli_selectors_and_scrub_sources(tmp_path, invoke):
    tdir = tmp_path / "t"
    planted = _plant_in_transcript(_transcript_sources()[0], tdir)
    invoke("import", "claude-code", str(planted))
    invoke("remember", "project/p/token", f"old {CANARY}")
    r = invoke("forget", "--match", "quokkacanary-4471", "--dry-run")
    assert "would forget 1 fact version and 1 turn" in r.stdout
    invoke("forget", "--match", "ab", exit_code=2)
    invoke("forget", "project/p/token", "--match", "x", exit_code=2)
    invoke("forget", "--session", "no-such-session", exit_code=4)
    invoke("forget", "--scrub-sources", "project/p/token", exit_code=2)
    assert b"Quokkacanary" in planted.read_bytes()
    mode = planted.stat().st_mode
    before = planted.read_text().splitlines()
    r = invoke("forget", "--match", "quokkacanary-4471", "--scrub-sources", "--yes", "--json")
    out = r.json
    assert out["forgotten"] and out["sources_scrubbed"] == [str(planted.resolve())]
    assert b"Quokkacanary" not in planted.read_bytes() and b"[REDACTED]" in planted.read_bytes()
    assert planted.stat().st_mode == mode
    after = planted.read_text().splitlines()
    assert len(after) == len(before)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(changed) == 1 and "[REDACTED]" in json.loads(changed[0][1])["message"]["content"]
    assert invoke("forget", "--match", "quokkacanary-4471").stdout.startswith("nothing matches")


def _subagent_with_rollup(store: Store, parent_sid: str) -> dict:
    """A sub-agent session under ``parent_sid`` whose middle turn holds the
    canary, a fact it recorded from that turn, and the parent's rollup
    summary with edges to both (issue 16)."""
    from objstore.memory.appender import TurnAppender
    from objstore.memory.sessions import CapturedTurn
    sub = f"{parent_sid}.agent-a1b2c3"
    app = TurnAppender(store, command="test")
    texts = ["searching the config for the staging token", f"found it: {CANARY} in staging.env",
             "done: the token is in staging.env"]
    with store.lock("test"):
        tids = [app.add(CapturedTurn(session=sub, source=f"t:sub:{i}", role="assistant", text=t,
                                     timestamp=1_772_000_000_000 + i, cwd="", project="p"))
                for i, t in enumerate(texts)]
        app.publish()
    app.close()
    finding = facts.remember(store, "project/p/sub-finding", f"staging host is {CANARY}", owner="agent:a1b2c3",
                             trust="agent_observed", edges=[("derived_from", tids[1])]).version.id
    rollup = facts.remember(store, "project/p/rollup", "sub-agent a1b2c3: the staging token lives in staging.env",
                            owner="agent:a1b2c3", edges=[("rollup_of", t) for t in tids]
                            + [("relates_to", "project/p/sub-finding"), ("derived_from", finding),
                               ("relates_to", "project/p/other")])
    return {"sub": sub, "turns": tids, "finding": finding, "rollup": rollup.version.id}


@pytest.mark.parametrize("how", ["match", "ids", "session"])
def test_forgetting_a_subagent_fact_leaves_the_rollup_edges_clean(tmp_path, how):
    """Forget of a sub-agent's turn and fact removes them from the rollup's
    edges (the rollup is rewritten; a later turn it links follows its new id)
    and leaves no residue: neither the text nor any id of a forgotten or
    replaced object is found anywhere in the store after gc."""
    store, planted = _build(tmp_path, _transcript_sources()[0])
    sa = _subagent_with_rollup(store, _sid(store, CANARY))
    if how == "match":
        forget(store, match="Quokkacanary-4471")
    elif how == "session":  # the whole sub-agent session: the rollup keeps no edge to any of its turns
        forget(store, session=sa["sub"])
        forget(store, match="Quokkacanary-4471")
        rollup = facts.current(store, "project/p/rollup")
        assert rollup.fact.edges == (("relates_to", "project/p/other"),)
        assert store.refs.read("sessions/" + sa["sub"]) is None
        _assert_gone(store, planted)
        gone_ids = [*sa["turns"], sa["finding"], sa["rollup"]]
        assert scan_store(store.root, [i.encode() for i in gone_ids] + [bytes.fromhex(i) for i in gone_ids]) == []
        assert not {i[:32] for i in gone_ids} & _index_turn_ids(store)   # the turns' ids live in fast columns, not the doc store
        return
    else:
        forget(store, what="project/p/sub-finding")
        forget(store, what=sa["turns"][1])
        forget(store, match="Quokkacanary-4471")  # the rest of the canary (parent turn, token facts)
    turns = session_turns(store, sa["sub"])
    assert [t.turn.forgotten > 0 for t in turns] == [False, True, False]
    assert turns[0].id == sa["turns"][0] and turns[2].id != sa["turns"][2]  # rewritten after the forgotten one
    rollup = facts.current(store, "project/p/rollup")
    assert rollup.fact.body.startswith("sub-agent a1b2c3")
    assert rollup.fact.edges == tuple(sorted([("rollup_of", turns[0].id), ("rollup_of", turns[2].id),
                                              ("relates_to", "project/p/other")]))
    assert store.refs.read("facts/project/p/sub-finding") is None
    assert all(not v.fact.edges or v.fact.edges == rollup.fact.edges for v in facts.versions(store, "project/p/rollup"))
    _assert_gone(store, planted)
    gone_ids = [sa["turns"][1], sa["turns"][2], sa["finding"], sa["rollup"]]
    assert scan_store(store.root, [i.encode() for i in gone_ids] + [bytes.fromhex(i) for i in gone_ids]) == []
    assert not {i[:32] for i in gone_ids} & _index_turn_ids(store)   # the turns' ids live in fast columns, not the doc store


def test_forgetting_a_subagent_fact_and_turn_under_a_real_rollup(tmp_path):
    """The rollup written by the sub-agent path (``capture.rollup``, as
    SubagentStop does): a fact in the sub-agent's namespace and its turn are
    forgotten; the summary loses the edge, a repeated SubagentStop does not
    bring it back, and no id or text of them is left anywhere."""
    from objstore.capture.rollup import rollup, rollup_edges
    from objstore.memory.appender import TurnAppender
    from objstore.memory.sessions import CapturedTurn
    store, planted = _build(tmp_path, _transcript_sources()[0])
    parent = _sid(store, CANARY)
    sub = f"{parent}.agent-b2c3d4"
    app = TurnAppender(store, command="test")
    texts = ["looking for the token", f"found it: {CANARY} in staging.env", "the token lives in staging.env"]
    with store.lock("test"):
        tids = [app.add(CapturedTurn(session=sub, source=f"t:sub2:{i}", role="assistant", text=t,
                                     timestamp=1_772_000_000_000 + i, cwd="", project="p"))
                for i, t in enumerate(texts)]
        app.publish()
    app.close()
    finding = facts.remember(store, "project/p/sub-token", f"staging token {CANARY}", namespace=sub,
                             trust="agent_observed", owner="agent:b2c3d4", edges=[("derived_from", tids[1])])
    r = rollup(store, sub, "the token lives in staging.env")
    assert r.status == "written" and set(rollup_edges(facts.current(store, r.key).fact)) == set(tids)
    facts.remember(store, "project/p/sub-note", "see the sub-agent's token finding", namespace=sub,
                   edges=[("relates_to", "project/p/sub-token"), ("derived_from", finding.version.id)])
    forget(store, what="project/p/sub-token")
    forget(store, match="Quokkacanary-4471")
    turns = session_turns(store, sub)
    assert [t.turn.forgotten > 0 for t in turns] == [False, True, False]
    summary = facts.current(store, r.key).fact
    assert set(rollup_edges(summary)) == {turns[0].id, turns[2].id}
    assert facts.current(store, "project/p/sub-note").fact.edges == ()
    again = rollup(store, sub, "the token lives in staging.env")  # SubagentStop delivered again
    assert set(rollup_edges(facts.current(store, again.key).fact)) == {turns[0].id, turns[2].id}
    _assert_gone(store, planted)
    gone = [tids[1], tids[2], finding.version.id, r.id]
    assert scan_store(store.root, [i.encode() for i in gone] + [bytes.fromhex(i) for i in gone]) == []
    assert not {i[:32] for i in gone} & _index_turn_ids(store)   # the turns' ids live in fast columns, not the doc store


def test_forget_in_a_packed_store_leaves_no_trace_in_the_pack_dictionary(tmp_path):
    """A version-2 pack carries a preset dictionary made of raw bytes of
    its first frames.  Forget of a value held by one of those frames must
    rewrite the pack with a new dictionary: the value is in no file after.
    (A version-4 pack gets a dictionary only when its frames total 1 MiB
    or more: the notes are long enough for that.)"""
    canary = "canary-kestrel-5519"
    with open_store(tmp_path / "s", create=True) as store:
        facts.remember(store, "user/door", f"the door code is {canary}")   # first: inside the dictionary
        for i in range(60):  # few enough that every frame's head is in the dictionary
            facts.remember(store, f"project/p/note{i}",
                           f"note {i}: the build uses cache layer {i % 7}" + f", then step {i} of its log" * 800)
        gc(store, grace_s=0)                                               # everything in one packed pack
        packs = list((tmp_path / "s" / "objects" / "pack").glob("*.pack"))
        assert len(packs) == 1 and canary.encode() in packs[0].read_bytes()
        forget(store, match=canary)
        gc(store, grace_s=0)
        assert scan_store(store.root, [canary.encode()]) == []
        assert facts.current(store, "project/p/note59").fact.body.startswith("note 59")
