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


def test_forget_session_or_turn_id_takes_an_unpublished_session(mem, store_path):
    """test30b S6: ``forget --session SID`` and ``forget <turn id>`` of a
    session whose turns are stored but were never published answered "no
    session", and ``fsck --repair`` then published them with the text."""
    mem("init")
    _unpublished(store_path, "pxs4-unpublished", [("user", f"the door code is {WORD}"), ("assistant", "noted")])
    r = mem("forget", "--session", "pxs4-u", "--yes", env=PERSON)   # a prefix names it too (test30c T18)
    assert "2 unreferenced objects" in r.stdout, r.stdout
    mem("fsck", "--repair", exit_code=None)
    assert "pxs4" not in mem("sessions").stdout and not scan_store(store_path, [WORD.encode()])
    # by a turn's id: that turn and the unpublished turns after it
    _unpublished(store_path, "pxs5", [("user", "a harmless first prompt"), ("user", f"the door code is {WORD}"),
                                      ("assistant", "noted again")])
    from objstore.memory.opening import open_store as _open
    st = _open(store_path)
    try:
        second = next(oid for oid in st.objects if getattr(st.get(oid), "text", "").startswith("the door code"))
    finally:
        st.close()
    r = mem("forget", second[:12], "--yes", env=PERSON)
    assert "2 unreferenced objects" in r.stdout, r.stdout
    assert not scan_store(store_path, [WORD.encode()])


def test_a_live_writer_writes_the_turns_after_the_forgotten_one_again_as_they_were(mem, store_path):
    """test30b S7: the unpublished turns after the one holding the text are
    deleted, never tombstoned: the writer still waiting for the lock (here,
    the same turns added again by a turn writer, as ``revalidate``/``reset``
    does) stores them with their text; only the matched turn is emptied."""
    mem("init")
    turns = [("user", "hello, warm-up"), ("user", f"the safe combination is {WORD}"), ("assistant", "ok"),
             ("user", "and after that, run the tests")]
    _unpublished(store_path, "re1", turns)
    r = mem("forget", "--match", WORD, "--yes", env=PERSON)
    assert "4 unreferenced objects" not in r.stdout and "unreferenced objects" in r.stdout
    store = open_store(store_path)
    try:   # the writer that was waiting: its objects are gone, so it adds its batch again under the lock
        w = TurnAppender(store, command="proxy", harness="proxy")
        for i, (role, text) in enumerate(turns):
            w.add(CapturedTurn("re1", f"px:re1:{i}", role, text, 1796400000000 + i, "/home/dev/shop", "shop"))
        w.publish()
        w.close()
    finally:
        store.close()
    shown = mem("show", "re1").stdout
    assert "and after that, run the tests" in shown and "hello, warm-up" in shown and WORD not in shown
    assert not scan_store(store_path, [WORD.encode()])


def test_forget_match_of_a_text_not_stored_yet_writes_its_rule(mem, store_path, tmp_path):
    """test30b S16: a ``--match`` text nothing stored holds yet (a hook's
    sync blocked by the lock) gets its text rule all the same, so the turn
    captured later is never served with it."""
    from tests.derive._util import transcript
    mem("init")
    r = mem("forget", "--match", WORD, "--yes", env=PERSON)
    assert "nothing matches" in r.stdout and "wrote its text rule" in r.stdout
    again = json.loads(mem("forget", "--match", WORD, "--yes", "--json", env=PERSON).stdout)
    assert again["text_rule_written"] is False and again["text_rule_held"] is True   # once, and said so
    said = mem("forget", "--match", WORD, "--yes", env=PERSON).stdout   # test32 X19: "no text rule written … served"
    assert "its text rule (a hash) is already written" in said and "no text rule written" not in said, said
    t = tmp_path / "cc" / "-home-dev-shop" / "later.jsonl"
    transcript(t, "later", [("user", f"the locker code is {WORD}"), ("assistant", "ok")])
    mem("import", "claude-code", str(t.parent), env=PERSON)
    shown = mem("search", "locker").stdout
    assert "locker code is" in shown and WORD not in shown and "[forgotten]" in shown


def test_a_short_or_unconfirmed_text_gets_no_rule_ahead(mem, store_path):
    """test30c T1: the rule ahead (test30b S16) is written only with --yes
    and for 8 or more characters: a forget of "run" with nothing stored
    hid every later "running" for good, unasked."""
    mem("init")
    r = mem("forget", "--match", "run", "--yes", env=PERSON)
    assert "no text rule written" in r.stdout
    r = mem("forget", "--match", WORD, env=PERSON, input="")
    assert "no text rule written" in r.stdout
    mem("remember", "project/a/k", f"running the job; {WORD} noted", env={"MEM_AGENT": "claude"})
    assert "running the job" in mem("get", "project/a/k").stdout
