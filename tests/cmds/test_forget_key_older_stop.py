"""A store an older mem left in the test33b T6 state: a ``mem forget KEY``
was stopped, recovery then forgot the key, and the turns quoting its value
were never tombstoned (the unfinished note present, the key gone, the value
in hundreds of turns).  The rerun fsck and doctor advise said "already
forgotten" and deleted the note, the value left in every turn.  Now the
rerun finds the turns by the hashes the store keeps (the value's text rule;
the source turn's match gives back the value, so the forms other turns
quote it by too) and finishes; when the value is too short for a text rule
it keeps the note, exits 3 and names the ``--match`` that finishes it.
The state is made by hand: the key forgotten through the library without
its turns (as that mem did), the note written as ``core.unfinished`` does.
Real ``mem`` processes on a real store."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time

from tests.cmds.test_forget_key_stopped import KEY, PERSON, VALUE, _left_in_store, _setup
from tests.conftest import REPO

MARK = "[REDACTED:forgotten-value]"


def _older_stop(store_path, key: str) -> None:
    """The key forgotten whole without its turns, and the note of a stopped
    ``mem forget KEY`` left (docs/format.md, forget-unfinished)."""
    subprocess.run([sys.executable, "-c", (
        "import sys\nfrom objstore.memory.opening import open_store\nfrom objstore.memory.forget import forget\n"
        "s = open_store(sys.argv[1])\nforget(s, what=sys.argv[2])\ns.close()\n"), str(store_path), key],
        cwd=REPO, check=True, timeout=120)
    d = store_path / "forget-unfinished"
    d.mkdir(exist_ok=True)
    name = hashlib.sha256(f"what\t{key}".encode()).hexdigest()[:32]
    (d / name).write_text(f"what\t{key}\t{int(time.time() * 1000)}\tforget\n")


def _turn_texts(mem) -> list[str]:
    return [json.loads(ln)["fields"]["text"] for ln in mem("export", "-o", "-").stdout.splitlines()
            if json.loads(ln).get("object") == "turn"]


def test_the_rerun_finishes_the_turns_an_older_mem_left_holding_the_value(mem, store_path, tmp_path):
    _setup(mem, tmp_path, turns=120)
    _older_stop(store_path, KEY)
    assert len(_left_in_store(mem)) >= 121                # the turns quoting it (export refuses now)
    r = mem("fsck", exit_code=None)
    assert "UNFINISHED: " in r.stdout, r.stdout
    r = mem("forget", KEY, "--yes", env=PERSON)           # the rerun fsck and doctor advise
    assert "withheld its value in 121 turns" in r.stderr, r.stdout + r.stderr
    assert not any((store_path / "forget-unfinished").iterdir())
    texts = _turn_texts(mem)
    assert not any(VALUE in t for t in texts)
    assert sum(f"ship it to {MARK} today" in t for t in texts) == 120         # each keeps its text
    assert any(t == f"remember that {MARK}" for t in texts), texts[:3]        # as an unstopped forget leaves it
    mem("gc", "--prune=now")
    assert _left_in_store(mem) == []
    r = mem("fsck", exit_code=None)
    assert "ok:" in r.stdout and "UNFINISHED" not in r.stdout, r.stdout


def test_a_value_too_short_for_a_hash_keeps_the_note_and_names_the_match(mem, store_path, tmp_path):
    short, key = "zq-481", "project/acme/pin"
    mem("init")
    mem("remember", key, short)
    (tmp_path / "acme").mkdir()
    for i in range(3):
        mem("hook", "claude-code", input=json.dumps({
            "hook_event_name": "UserPromptSubmit", "session_id": "dddddddd-0000-4000-8000-0000000034a2",
            "transcript_path": None, "cwd": str(tmp_path / "acme"), "prompt": f"try {short} again, step {i}"}),
            env={"MEM_NO_HELPER": "1", "MEM_HOOK_FORK": "0"})
    _older_stop(store_path, key)
    r = mem("forget", key, "--yes", env=PERSON, exit_code=3)
    assert "mem forget --match" in r.stderr and short not in r.stderr, r.stderr
    assert any((store_path / "forget-unfinished").iterdir())  # the note stays
    assert "UNFINISHED: " in mem("fsck", exit_code=None).stdout
    mem("forget", "--match", short, "--yes", env=PERSON)     # what it names
    assert not any((store_path / "forget-unfinished").iterdir())
    mem("gc", "--prune=now")
    assert [p for p in json.loads(mem("scan", short, "--json", "--no-remotes", exit_code=None).stdout)
            if p["place"] != "transcript"] == []
    r = mem("fsck", exit_code=None)
    assert "ok:" in r.stdout and "UNFINISHED" not in r.stdout, r.stdout
