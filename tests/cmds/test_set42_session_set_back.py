"""A session ref set back to an older turn (a synced folder's older copy of
the ref file; test41 T33): fsck said "ok", the repair "nothing to repair",
``mem show`` lost the later turns, and the next captured turn forked past
them, so they left the session for good.  Now fsck and doctor name it,
``mem fsck --repair`` sets it forward, and the turn writer (failing open)
goes on from the reflog's last move and says so in ``logs/hooks.log``.
Real ``mem import claude-code`` (the hooks' turn writer) and ``mem``
processes on a real store."""

from __future__ import annotations

import json
import shutil

SID = "dddddddd-0000-4000-8000-00000000423b"
PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def _say(mem, tmp_path, words: str) -> None:
    """One more user turn in the session's Claude Code transcript, then
    ``mem import claude-code`` of it: the turn writer the hooks use, with
    no hook budget to run out under a loaded machine."""
    d = tmp_path / "claude" / "-tmp-acme"
    d.mkdir(parents=True, exist_ok=True)
    n = len((d / f"{SID}.jsonl").read_text().splitlines()) if (d / f"{SID}.jsonl").exists() else 0
    with open(d / f"{SID}.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"type": "user", "sessionId": SID, "uuid": f"u-{n}", "cwd": "/tmp/acme",
                            "timestamp": "2026-12-07T09:00:%02d.000Z" % n,
                            "message": {"role": "user", "content": words}}) + "\n")
    mem("import", "claude-code", str(d), env=PERSON)


def _texts(mem) -> list[str]:
    return [t["text"] for t in mem("show", SID, "--json").json["turns"]]


def test_a_set_back_session_ref_is_named_repaired_and_never_forked(mem, store_path, tmp_path):
    ref = store_path / "refs" / "sessions" / SID
    _say(mem, tmp_path, "first real question about alpha")
    shutil.copy(ref, tmp_path / "old-ref")
    _say(mem, tmp_path, "second question about bravo")
    _say(mem, tmp_path, "third question about charlie")
    words = ["alpha", "bravo", "charlie"]
    assert [w for w in words if any(w in t for t in _texts(mem))] == words

    shutil.copy(tmp_path / "old-ref", ref)                          # a synced folder's older copy
    r = mem("fsck", exit_code=13)
    assert f"ref sessions/{SID}" in r.stdout and "set back" in r.stdout, r.stdout
    doc = mem("doctor", "--json", exit_code=None).stdout
    assert f"sessions/{SID}" in doc and "older value than their last write" in doc
    mem("fsck", "--repair")
    assert [w for w in words if any(w in t for t in _texts(mem))] == words   # the later turns are back
    assert "ok:" in mem("fsck").stdout

    shutil.copy(tmp_path / "old-ref", ref)                          # set back again; then the next capture
    _say(mem, tmp_path, "fourth question about delta")
    texts = _texts(mem)
    words.append("delta")
    assert [w for w in words if any(w in t for t in texts)] == words, texts   # no fork: nothing dropped
    assert [w for t in texts for w in words if w in t] == words               # in their order
    log = (store_path / "logs" / "hooks.log").read_text()
    assert "set-back" in log and SID in log
    assert "ok:" in mem("fsck").stdout
