"""test30 R4: a writer that makes its turn objects before it takes the
store lock (the proxy's capture, the hooks') and is killed before its ref
moves leaves loose objects no ref reaches.  ``mem forget --match`` finds
them (it said "nothing stored holds it"), writes their tombstones and
deletes them, so ``gc`` keeps nothing back for them and ``fsck --repair``
never rebuilds a session out of them: the text is back nowhere.  The
turns are written by the real turn writer, which is stopped before its
publish, as a kill leaves them."""

from __future__ import annotations

import json

from objstore.memory.appender import TurnAppender
from objstore.memory.forget import scan_store
from objstore.memory.opening import open_store
from objstore.memory.sessions import CapturedTurn

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
WORD = "cobalt-pangolin-58"


def _unpublished(store_path, sid: str, texts) -> None:
    store = open_store(store_path)
    try:
        w = TurnAppender(store, command="proxy", harness="proxy")
        for i, (role, text) in enumerate(texts):
            w.add(CapturedTurn(sid, f"px:{sid}:{i}", role, text, 1796400000000 + i, "/home/dev/shop", "shop"))
        w.sync_objects()   # the objects are on disk; the writer dies here, before publish()
    finally:
        store.close()


def test_forget_match_takes_unreferenced_turn_objects(mem, store_path):
    mem("init")
    mem("remember", "project/shop/db", "postgres on db-7", env=PERSON)
    _unpublished(store_path, "pxs2", [("user", f"the gate code is {WORD}, keep it"),
                                      ("assistant", f"Understood, the gate code is {WORD}."),
                                      ("user", "and the lobby opens at nine")])
    assert scan_store(store_path, [WORD.encode()])
    r = mem("forget", "--match", WORD, "--yes", env=PERSON)
    assert "3 unreferenced objects" in r.stdout, r.stdout   # the batch's third turn came after them
    assert not scan_store(store_path, [WORD.encode()])
    # gc keeps nothing back for them, and a repair rebuilds no session out of what is left
    gc = mem("gc", "--prune=now")
    assert "no ref" not in gc.stdout, gc.stdout
    mem("fsck", "--repair", exit_code=None)
    assert "pxs2" not in mem("sessions").stdout
    assert not scan_store(store_path, [WORD.encode()])
    assert "0 problems" in mem("fsck").stdout
    assert mem("get", "project/shop/db").stdout.strip() == "postgres on db-7"
    # a second run finds nothing left
    again = json.loads(mem("forget", "--match", WORD, "--yes", "--json", env=PERSON).stdout)
    assert again["unreferenced"] == 0 and not again["forgotten"]


def test_a_published_turn_is_not_taken_as_unreferenced(mem, store_path):
    """The loose turn a ref reaches is forgotten the usual way (its
    history rewritten), never counted twice as unreferenced."""
    mem("init")
    store = open_store(store_path)
    try:
        w = TurnAppender(store, command="proxy", harness="proxy")
        w.add(CapturedTurn("pxs3", "px:pxs3:0", "user", f"the gate code is {WORD}", 1796400000000, "/tmp", "shop"))
        w.publish()
    finally:
        store.close()
    r = json.loads(mem("forget", "--match", WORD, "--yes", "--json", env=PERSON).stdout)
    assert r["turns"] == 1 and r["unreferenced"] == 0
    assert not scan_store(store_path, [WORD.encode()])
