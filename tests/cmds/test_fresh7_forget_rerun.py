"""fresh7 F7 (notes/fresh7-attack.md): a ``mem forget --session X --yes``
killed mid-way is finished by the next command that takes the store lock;
when that command is the same forget run again, it says it finished the
stopped forget (fresh42 F9), and a run after that says the session was
already forgotten; both exit 0 (it exited 4 "no session", so a script
thought the forget had failed).  Real ``mem`` processes, a real SIGKILL
sent once the forget has journalled what it deletes."""

from __future__ import annotations

import json
import signal
import uuid

from objstore.memory.forget import scan_store
from tests.conftest import signal_forget_midway

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
SID = "f7f7f7f7-0000-4000-8000-000000000007"
WORD = "margay-pewter-7171"


def _import_session(mem, tmp_path, n: int = 2000) -> None:
    tp = tmp_path / "claude" / "-tmp-f7" / f"{SID}.jsonl"
    tp.parent.mkdir(parents=True)
    with open(tp, "w", encoding="utf-8") as f:
        for i in range(n):
            text = (f"secret {WORD} line {i} " if i % 100 == 0 else f"filler line {i} ") + "y" * 150
            f.write(json.dumps({"type": "user", "sessionId": SID, "uuid": str(uuid.uuid4()), "cwd": "/tmp/f7",
                                "timestamp": "2026-03-02T09:00:%02d.000Z" % (i % 60),
                                "message": {"role": "user", "content": text}}) + "\n")
    mem("init")
    mem("import", "claude-code", str(tp.parent), env=PERSON)


def _kill_forget_midway(store_path, *args: str) -> None:
    """SIGKILL ``mem forget ARGS --yes`` once the index journal names the
    objects it will delete (its history rewrite, index purge and deletes
    follow)."""
    code, _err = signal_forget_midway(store_path, args, signal.SIGKILL, PERSON)
    assert code == -signal.SIGKILL


def test_rerun_of_a_killed_session_forget_says_already_forgotten(mem, store_path, tmp_path):
    _import_session(mem, tmp_path)
    _kill_forget_midway(store_path, "--session", SID)
    assert "forget was stopped" in mem("doctor", exit_code=None).stdout
    r = mem("forget", "--session", SID, "--yes", env=PERSON)       # was: "Error: no session ...", exit 4
    # this run's lock finished the forget, and it says so (fresh42 F9: it said "nothing left to forget")
    assert f"finished the forget of session {SID} stopped earlier" in r.stdout, r.stdout
    assert "nothing left" not in r.stdout and (store_path / "index-journal").stat().st_size == 0
    r = mem("forget", "--session", SID, "--yes", env=PERSON)       # once more: nothing was left this time
    assert f"session {SID} was already forgotten" in r.stdout and "nothing left to forget" in r.stdout
    j = mem("forget", "--session", SID[:8], "--yes", "--json", env=PERSON).json   # a prefix, as the first run
    assert j["forgotten"] is False and j["already_forgotten"]["name"] == f"session:{SID}"
    assert j["turns"] == 0
    mem("forget", "--session", "0123abcd-0000-4000-8000-00000000000f", "--yes", env=PERSON, exit_code=4)
    mem("fsck")
    mem("gc", "--prune=now")
    assert scan_store(store_path, [WORD.encode()]) == []


def test_rerun_of_a_whole_key_forget_says_already_forgotten(mem):
    mem("init")
    mem("remember", "project/f7/pw", "the vault pin is 4471-ocelot", env=PERSON)
    mem("forget", "project/f7/pw", "--yes", env=PERSON)
    r = mem("forget", "project/f7/pw", "--yes", env=PERSON)
    assert "project/f7/pw was already forgotten" in r.stdout
    mem("forget", "project/f7/never", "--yes", env=PERSON, exit_code=4)
    mem("forget", "project/f7/pw", "--dry-run", env=PERSON)           # a dry run says the same, exit 0


def test_a_forgotten_version_forgotten_again_is_left_as_it_is(mem):
    """A second ``mem forget KEY@vN`` (or by the emptied version's object
    id) of a version already forgotten changes nothing: no history rewrite
    (every version keeps its id), no new tombstone; it says so and exits 0
    (it rewrote the history again, giving each version new ids)."""
    mem("init")
    mem("remember", "project/shop/port", "port 5432", env=PERSON)
    mem("remember", "project/shop/port", "port 6543", env=PERSON)
    mem("forget", "project/shop/port@v1", "--yes", env=PERSON)
    before = json.loads(mem("log", "project/shop/port", "--json").stdout)
    ids = [v["id"] for v in before]
    r = mem("forget", "project/shop/port@v1", "--yes", env=PERSON)
    assert "project/shop/port@v1 was already forgotten" in r.stdout and "nothing left to forget" in r.stdout
    r = mem("forget", ids[-1], "--yes", "--json", env=PERSON)
    assert json.loads(r.stdout)["already_forgotten"]["name"] == "project/shop/port@v1"
    after = json.loads(mem("log", "project/shop/port", "--json").stdout)
    assert [v["id"] for v in after] == ids and after == before
    assert json.loads(mem("get", "project/shop/port", "--json").stdout)["body"] == "port 6543"


def test_another_forget_run_after_a_killed_one_is_not_said_to_finish_it(mem, store_path, tmp_path):
    """test43 T5: "finished the forget of … stopped earlier" was said by whichever forget took the lock next
    (any forget in the journal), naming its own target, which was never stopped."""
    _import_session(mem, tmp_path)
    mem("remember", "project/f7/other", "a value forgotten whole", env=PERSON)
    mem("forget", "project/f7/other", "--yes", env=PERSON)
    _kill_forget_midway(store_path, "--session", SID)
    r = mem("forget", "project/f7/other", "--yes", env=PERSON)     # its lock finishes the session's forget
    assert "project/f7/other was already forgotten" in r.stdout and "finished" not in r.stdout, r.stdout
