"""q20: ``mem forget --credentials`` did not reach the review queue: a
proposal holding a credential that no rule knew when it was queued (written
here with the object and ref directly, as a mem before the rule did) --
queued, accepted or rejected -- kept it in its object and its reflog
history, and ``mem scan`` still found it after the forget and ``mem gc``.
Now each such item is written again redacted (``queue.redact_proposal``,
the one redaction of a proposal), its history moved onto the redacted
objects, a tombstone of the old value written, the old objects purged.
Real ``mem`` processes."""

from __future__ import annotations

from objstore import scan_store
from objstore.core.objects import QueueItem
from objstore.memory.opening import open_store
from objstore.memory.proposals import enqueue
from objstore.memory.tombstones import all_tombstones

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
TOKENS = ["ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK1", "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK2",
          "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK3"]


def _queue_raw(store_path, key: str, body: str) -> str:
    """An item queued as before a rule knew its credential: no redaction (``enqueue`` stores it as given)."""
    with open_store(store_path, create=True) as s:
        item = QueueItem(kind="challenge", key=key, body=body, fact_kind="reference", trust="agent_observed",
                         owner="agent", time=1_772_000_000_000)
        return enqueue(s, item).item


def _leaks(store_path) -> list:
    return [h for t in TOKENS for h in scan_store(store_path, [t.encode()])]


def test_forget_credentials_redacts_queued_accepted_and_rejected_items(mem, store_path):
    mem("remember", "project/x/pending", "plain value", env=PERSON)
    pending = _queue_raw(store_path, "project/x/pending", f"the deploy token is {TOKENS[0]}")
    accepted = _queue_raw(store_path, "project/x/acc", f"the ci token is {TOKENS[1]}")
    rejected = _queue_raw(store_path, "project/x/rej", f"the old token is {TOKENS[2]}")
    mem("queue", "accept", accepted[:12], env=PERSON)     # (remember redacts the value it writes)
    mem("queue", "reject", rejected[:12], env=PERSON)
    assert len(_leaks(store_path)) >= 3                    # the items' objects hold them (the test can fail)

    dry = mem("forget", "--credentials", "--dry-run", "--json").json
    r = mem("forget", "--credentials", "--yes", env=PERSON)
    mem("gc", "--prune=now")
    assert _leaks(store_path) == []                        # no object, reflog or log holds a byte
    assert "3 review-queue items" in r.stdout, r.stdout
    assert not any(t in r.stdout + r.stderr for t in TOKENS)
    assert sorted(x["item"] for x in dry["queue_items"]) == sorted([pending, accepted, rejected])

    out = mem("queue", "list", "--json").json
    items = out if isinstance(out, list) else out.get("items", out)
    bodies = [i.get("value", i.get("body")) for i in items]
    assert bodies == ["the deploy token is [REDACTED:github-token]"], items
    with open_store(store_path) as s:
        assert {t.reason for t in all_tombstones(s) if t.key in ("project/x/pending", "project/x/acc")} \
            == {"forget --credentials"}
        assert len(list(s.reflog.read(f"queue/{items[0].get('item', items[0].get('id'))}"))) >= 1
    # each item keeps its history (queued, then accepted or rejected), on the redacted objects
    logs = sorted(len(f.read_text().splitlines()) for f in (store_path / "logs" / "refs" / "queue").iterdir())
    assert logs == [1, 2, 2], logs
    assert not {pending, accepted, rejected} & {f.name for f in (store_path / "logs" / "refs" / "queue").iterdir()}
    assert "nothing changed" in mem("forget", "--credentials", "--yes", env=PERSON).stdout
    assert mem("fsck", "--json").json["ok"]
