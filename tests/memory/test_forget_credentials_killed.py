"""q20: a ``mem forget --credentials`` killed (SIGKILL) after it had written
its tombstones and journal (``D`` lines), in the middle of its history
rewrite, was finished by the next lock holder's recovery as a plain forget:
the versions it had tombstoned and not yet rewritten were EMPTIED (a key with
no other value went whole) rather than redacted.  Recovery now finishes it
redacted: each version keeps its place and its other text, the credential
replaced as the run would have done, and the tombstones keep the reason
``forget --credentials``.  Real ``mem`` processes, a real SIGKILL."""

from __future__ import annotations

import signal

from objstore import remember, scan_store
from objstore.memory.opening import open_store
from objstore.memory.tombstones import all_tombstones

from tests.conftest import fact_chain, journal_deletes, signal_forget_midway

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
N = 160
TOKEN = b"Q9w2E3r4T5y6U7i8"


def _key(i: int) -> str:
    return f"project/demo/summary/s{i:04d}"


def test_a_killed_forget_credentials_is_finished_redacted_not_emptied(mem, store_path):
    # as a mem before session 18 stored them: a summary cut after a token's start, which no rule then caught
    with open_store(store_path, create=True) as s:
        for i in range(N):
            remember(s, _key(i), f"summary {i} " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8…", kind="summary")
    assert scan_store(store_path, [TOKEN])
    code, err = signal_forget_midway(store_path, ["--credentials"], signal.SIGKILL, PERSON, ready=journal_deletes)
    assert code == -signal.SIGKILL, err
    left = sum(1 for i in range(N) if TOKEN.decode() in fact_chain(store_path, _key(i))[0][2])
    assert left, "the kill came after the rewrite: nothing for the recovery to finish"

    mem("remember", "project/demo/other", "a later write takes the lock and finishes the journal", env=PERSON)
    for i in range(N):
        chain = fact_chain(store_path, _key(i))    # every key is still there, with its one version
        assert [(v, f) for v, f, _b in chain] == [(1, False)], (i, chain)
        assert chain[0][2] == f"summary {i} " + "b" * 3000 + " [REDACTED:github-token]…", (i, chain)
    with open_store(store_path) as s:
        reasons = {t.reason for t in all_tombstones(s)}
    assert reasons == {"forget --credentials"}, reasons
    assert "nothing changed" in mem("forget", "--credentials", "--yes", env=PERSON).stdout
    mem("gc", "--prune=now")
    assert scan_store(store_path, [TOKEN]) == []
    assert mem("fsck", "--json").json["ok"]
