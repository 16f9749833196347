"""Session 21 (mend21): a ``mem forget --credentials`` killed (SIGKILL) in the
middle of its review-queue rewrite -- some items written again redacted
under their new ids, one perhaps with its ref moved and not yet its reflog,
the rest untouched -- is finished by the next command that takes the store
lock (journal recovery), as every other stopped forget is.  Before, the
journal did not name the items, so the replay cleared it and the queue kept
the credentials until the same command was run again.

Real ``mem`` processes on a real store; a real SIGKILL once the first item
has been moved (``tests.conftest.signal_forget_midway``)."""

from __future__ import annotations

import os
import signal

import pytest

from objstore import scan_store
from objstore.core.objects import QueueItem
from objstore.memory.opening import open_store
from objstore.memory.proposals import enqueue
from tests.conftest import signal_forget_midway

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
N = 60
TOKENS = [f"ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh{i:04d}" for i in range(N)]


def _queue_raw(store_path) -> list[str]:
    """N items queued as before a rule knew their credential (``enqueue`` stores them as given)."""
    with open_store(store_path, create=True) as s:
        return [enqueue(s, QueueItem(kind="challenge", key=f"project/x/k{i}", body=f"the token is {t}",
                                     fact_kind="reference", trust="agent_observed", owner="agent",
                                     time=1_772_000_000_000 + i)).item for i, t in enumerate(TOKENS)]


def _names(store_path) -> set[str]:
    out = set()
    for d in (store_path / "refs" / "queue", store_path / "logs" / "refs" / "queue"):
        try:
            out |= set(os.listdir(d))
        except FileNotFoundError:
            pass
    return out


def _leaks(store_path) -> list:
    return [h for t in TOKENS for h in scan_store(store_path, [t.encode()])]


def test_a_queue_rewrite_killed_midway_is_finished_by_the_next_writer(mem, store_path):
    mem("remember", "project/x/plain", "plain value", env=PERSON)
    items = _queue_raw(store_path)
    for iid in items[:2]:                               # decided items: a reflog, no ref
        mem("queue", "accept", iid[:12], env=PERSON)
    before = _names(store_path)
    assert before == set(items)

    code, err = signal_forget_midway(store_path, ["--credentials"], signal.SIGKILL, PERSON,
                                     ready=lambda home: bool(_names(home) - before))
    assert code == -signal.SIGKILL, err
    assert _leaks(store_path), "killed after the rewrite was done: the test proves nothing"
    assert b"Q\t" in (store_path / "index-journal").read_bytes()   # the items it rewrites, named first
    # unfinished, as doctor says (exit 6, test34b T12); any write finishes it
    said = mem("fsck", exit_code=6).stdout
    assert "review-queue item(s))" in said and "a forget was stopped before it finished" in said

    mem("remember", "project/x/other", "another value", env=PERSON)   # the next writer: recovery
    assert _leaks(store_path) == []                     # no object, reflog or log holds one (no gc needed)
    assert (store_path / "index-journal").read_bytes() == b""

    # every item once, redacted, under its new id, its history kept on the redacted objects
    out = mem("queue", "list", "--json").json
    listed = out if isinstance(out, list) else out.get("items", out)
    assert len(listed) == N - 2
    assert all(i.get("value", i.get("body")) == "the token is [REDACTED:github-token]" for i in listed)
    logs = {f.name: len(f.read_text().splitlines()) for f in (store_path / "logs" / "refs" / "queue").iterdir()}
    assert len(logs) == N and not set(items) & set(logs), "an item lost or doubled, or an old name kept"
    assert sorted(logs.values()) == [1] * (N - 2) + [2, 2]
    assert set(os.listdir(store_path / "refs" / "queue")) <= set(logs)
    assert mem("fsck", "--json").json["ok"]
    assert "nothing changed" in mem("forget", "--credentials", "--yes", env=PERSON).stdout



@pytest.mark.parametrize("stop", ["nothing moved", "new ref set", "refs moved", "reflog written"])
def test_recovery_finishes_the_move_from_each_point_it_can_stop(store_path, stop):
    """Each point between the ref and the reflog of the history-keeping move
    (``Store.update_ref(rewrite=True, idmap=..., rename=...)``: the new ref,
    the old ref deleted, the new reflog, the old reflog dropped), left as a
    kill leaves it with the ``Q`` line the forget wrote first; the next
    lock holder converges on one redacted item with its history."""
    from objstore.memory import queue
    with open_store(store_path, create=True) as s:
        iid = enqueue(s, QueueItem(kind="challenge", key="project/x/k", body=f"the token is {TOKENS[0]}",
                                   fact_kind="reference", trust="agent_observed", owner="agent", time=1)).item
    with open_store(store_path) as s, s.lock("forget"):
        [(cur, red)] = queue.plan_redactions(s).values()
        nid = queue.redacted_name(s, iid, cur, red)
        assert nid != iid
        s.journal.append([f"Q\t{iid}\t{nid}", f"D\t{cur}"])
        new = s.put(red[cur])
        old, newref = queue.item_ref(iid), queue.item_ref(nid)
        if stop != "nothing moved":
            s.refs.set_if_equals(newref, None, new)
        if stop in ("refs moved", "reflog written"):
            s.refs.set_if_equals(old, cur, None)
        if stop == "reflog written":
            s.reflog.replace(newref, [e.__class__(None, new, e.time, e.command) for e in s.reflog.read(old)])
    with open_store(store_path) as s:
        with s.lock("remember"):     # the next writer: the journal is replayed
            pass
        assert s.journal.is_empty()
        assert s.refs.read(queue.item_ref(iid)) is None and s.reflog.read(queue.item_ref(iid)) == []
        assert s.refs.read(queue.item_ref(nid)) == new
        assert [(e.old, e.new) for e in s.reflog.read(queue.item_ref(nid))] == [(None, new)]
    assert _leaks(store_path) == []


def test_a_history_keeping_move_from_the_wrong_id_moves_nothing(store_path):
    """``update_ref(rewrite=True, idmap=..., rename=...)`` of a ref not at
    ``old``: RefConflict (exit 5), no ref or reflog changed (session 20's
    ``rewrite_history`` raised a TypeError building it)."""
    from objstore.core.errors import RefConflict
    from objstore.memory import queue
    with open_store(store_path, create=True) as s:
        iid = enqueue(s, QueueItem(kind="challenge", key="project/x/k", body="plain", fact_kind="reference",
                                   trust="agent_observed", owner="agent", time=1)).item
        ref, cur = queue.item_ref(iid), s.refs.read(queue.item_ref(iid))
        with s.lock("t"), pytest.raises(RefConflict) as e:
            s.update_ref(ref, "0" * 64, "1" * 64, rewrite=True, idmap={cur: "1" * 64}, rename="queue/" + "2" * 64)
        assert e.value.exit_code == 5
        assert s.refs.read(ref) == cur and s.refs.read("queue/" + "2" * 64) is None
        assert [(x.old, x.new) for x in s.reflog.read(ref)] == [(None, cur)]
        with pytest.raises(ValueError):
            s.update_ref(ref, cur, cur, idmap={})
