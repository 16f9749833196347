"""A ``mem forget KEY`` of a "remember that" fact quoted in many turns,
killed (SIGKILL) while it wrote its tombstones: the key's versions were
tombstoned first, so recovery forgot the key, the rerun (what fsck and
doctor advise) found no key, planned nothing for the turns still quoting
the value, said "already forgotten" and deleted the note: the value stayed
in hundreds of turns, and fsck said ok (test33b T6).  The turns' tombstones
now come first: a forget stopped among them keeps its key, and the rerun
finishes it.  Real ``mem`` processes on a real store, a real SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import uuid

from tests.conftest import journal_deletes, signal_forget_midway

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
KEY = "project/acme/remembered/vendor-codename"
VALUE = "kestrel-jade-5150"
SID = "dddddddd-0000-4000-8000-00000033b6a1"


def _setup(mem, tmp_path, turns: int = 400) -> None:
    """The fact, remembered by the prompt hook, and a session whose every
    turn quotes its value, imported."""
    (tmp_path / "acme").mkdir()
    mem("init")
    mem("hook", "claude-code", input=json.dumps({
        "hook_event_name": "UserPromptSubmit", "session_id": SID, "transcript_path": None,
        "cwd": str(tmp_path / "acme"), "prompt": f"remember that the vendor codename is {VALUE}"}),
        env={"MEM_NO_HELPER": "1", "MEM_HOOK_FORK": "0"})
    assert VALUE in mem("get", KEY).stdout
    d = tmp_path / "claude" / "-tmp-acme"
    d.mkdir(parents=True)
    sid = str(uuid.UUID(int=0xB6 << 120))
    with open(d / f"{sid}.jsonl", "w", encoding="utf-8") as f:
        for i in range(turns):
            f.write(json.dumps({"type": "user", "sessionId": sid, "uuid": str(uuid.uuid4()),
                                "cwd": str(tmp_path / "acme"),
                                "timestamp": "2026-03-02T09:%02d:%02d.000Z" % (i // 60, i % 60),
                                "message": {"role": "user", "content": f"step {i}: ship it to {VALUE} today"}}) + "\n")
    mem("import", "claude-code", str(d), env=PERSON)


def _among_turn_tombstones(home) -> bool:
    """The forget has noted itself and written a few dozen tombstones, far
    from all (no ``D`` line yet)."""
    try:
        return (any(os.scandir(home / "forget-unfinished")) and len(os.listdir(home / "refs" / "tombstones")) >= 30
                and not journal_deletes(home))
    except FileNotFoundError:
        return False


def _left_in_store(mem) -> list[dict]:
    """``mem scan VALUE`` places other than the agent's transcripts (which a
    forget without --scrub-sources leaves)."""
    r = mem("scan", VALUE, "--json", "--no-remotes", exit_code=None)
    return [p for p in json.loads(r.stdout) if p["place"] != "transcript"]


def test_key_forget_killed_among_its_turn_tombstones_is_finished_by_the_rerun(mem, store_path, tmp_path):
    _setup(mem, tmp_path)
    assert "withhold the value in 401 turns" in mem("forget", KEY, "--dry-run").stdout
    code, _err = signal_forget_midway(store_path, [KEY], signal.SIGKILL, PERSON, ready=_among_turn_tombstones)
    assert code == -signal.SIGKILL
    assert not journal_deletes(store_path)                  # killed while writing its tombstones
    r = mem("fsck", exit_code=None)
    assert "UNFINISHED: " in r.stdout and "ok:" not in r.stdout, r.stdout
    assert VALUE in mem("get", KEY).stdout                  # the key stays until its turns are done
    r = mem("forget", KEY, "--yes", env=PERSON)             # the rerun fsck and doctor advise
    assert "already forgotten" not in r.stdout, r.stdout
    assert not any((store_path / "forget-unfinished").iterdir())
    r = mem("get", KEY, exit_code=None)
    assert r.exit_code != 0 and VALUE not in r.stdout + r.stderr
    mem("gc", "--prune=now")
    assert _left_in_store(mem) == []
    assert VALUE not in mem("search", "kestrel", exit_code=None).stdout
    r = mem("fsck", exit_code=None)
    assert "ok:" in r.stdout and "UNFINISHED" not in r.stdout, r.stdout
