"""syn44 (test43 T21): a lost ``hash-key`` was made anew without a word, so
every hidden session id changed and a re-import stored the whole session a
second time under another hidden id (fsck "ok").  While the store holds
data keyed under it (hidden sessions, its own forgets' keyed digests), a
missing key is damage: fsck (exit 13) and doctor name it, import stores
nothing twice and makes no key; ``mem fsck --repair`` makes a new one when
the person has no copy, and says what that means.  Real ``mem`` processes."""

from __future__ import annotations

import json

from tests.capture.test_sid43_hidden_session_ids import NAME, _sessions, _transcript
from tests.capture.test_txt42_text_rule_at_capture import _mem
from tests.hooks._util import hook_env


def test_a_lost_hash_key_is_damage_while_hidden_sessions_need_it(tmp_path):
    store = tmp_path / "store"
    env = {k: v for k, v in hook_env(store).items() if k != "MEM_AGENT"}
    _mem(env, "init")
    _mem(env, "forget", "--match", NAME, "--yes")
    folder = tmp_path / "w" / "zephyrine-quillborough" / "app"
    t = _transcript(folder, "zephyrine-quillborough-77", str(folder))
    _mem(env, "import", "claude-code", str(t))
    first = _sessions(env)
    assert len(first) == 1 and first[0]["id"].startswith("hidden-"), first
    (store / "hash-key").unlink()              # lost in a partial copy
    _transcript(folder, "zephyrine-quillborough-77", str(folder), 1)   # the transcript grows
    r = _mem(env, "import", "claude-code", str(t), ok=(0, 13))
    assert not (store / "hash-key").exists()   # no new key made
    assert [s["id"] for s in _sessions(env)] == [first[0]["id"]]   # nothing stored twice
    assert "hash key is missing" in r.stdout + r.stderr
    f = _mem(env, "fsck", ok=(13,))
    assert "hash key is missing while the store holds 1 hidden session id" in f.stdout + f.stderr
    d = _mem(env, "doctor", "--json", ok=(1,))
    assert any(x["check"] == "tombstones" and "hash key is missing" in x["message"]
               for x in json.loads(d.stdout)["findings"]), d.stdout
    fixed = _mem(env, "fsck", "--repair", ok=(0, 6))
    assert "a new one was made" in fixed.stdout + fixed.stderr
    assert "nothing to repair" not in fixed.stdout, fixed.stdout   # (a key was made: not "nothing")
    assert (store / "hash-key").exists()
    _mem(env, "fsck")


def test_a_store_with_no_keyed_data_still_makes_its_key(tmp_path):
    store = tmp_path / "store"
    env = {k: v for k, v in hook_env(store).items() if k != "MEM_AGENT"}
    _mem(env, "init")
    _mem(env, "remember", "project/x/port", "the api port is 8080")
    if (store / "hash-key").exists():
        (store / "hash-key").unlink()
    _mem(env, "fsck")
    _mem(env, "forget", "--match", NAME, "--yes")   # makes its key as before
    assert (store / "hash-key").exists()
