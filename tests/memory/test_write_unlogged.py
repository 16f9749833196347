"""test30 R12 and R1: a write whose ref moved and whose log line then
could not be written (a full disk; here the file-size limit, the same
failure at the same place, deterministic) says the value is stored, exit 13
and "do not run it again" (it said "run the command again; nothing
already stored was lost", and a retry wrote it twice); the search index
catches up; ``mem fsck`` names the ref whose reflog lacks the line and
``--repair`` adds it.  A folder in place of the audit log fails the write
before the ref moves.  Real ``mem`` processes."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys

from tests.conftest import REPO

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
#: a process under the file-size limit must not write a byte-code file: one cut short breaks every later import
NO_PYC = {"PYTHONDONTWRITEBYTECODE": "1"}


def _limited(limit: int):
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def test_a_write_whose_reflog_line_fails_says_it_is_stored(mem, store_path):
    mem("init")
    for i in range(12):
        mem("remember", "project/a/k", f"value number {i} with some words", env=PERSON)
    reflog = store_path / "logs" / "refs" / "facts" / "project" / "a" / "k"
    size = reflog.stat().st_size     # the reflog is the largest file the write appends to
    p = subprocess.run([sys.executable, "-m", "cmds", "remember", "project/a/k", "value thirteen zebrafish"],
                       env={**os.environ, **PERSON, **NO_PYC}, cwd=REPO, capture_output=True, text=True, timeout=120,
                       preexec_fn=_limited(size))
    assert p.returncode == 13, (p.stdout, p.stderr)
    assert "the write is stored" in p.stderr and "do not run it again" in p.stderr
    assert "nothing already stored was lost" not in p.stderr
    assert mem("get", "project/a/k").stdout.strip() == "value thirteen zebrafish"
    assert "zebrafish" in mem("search", "zebrafish").stdout            # the index caught up
    f = mem("fsck")
    assert "its reflog does not record this move" in f.stdout
    r = mem("fsck", "--repair", "--json", exit_code=None)
    assert json.loads(r.stdout)["repair"]["relogged"] == ["facts/project/a/k"], r.stdout
    assert "its reflog does not record" not in mem("fsck").stdout
    log = mem("reflog", "project/a/k").stdout.splitlines()
    assert "the line a stopped write did not add" in log[0] and len(log) == 13


def test_a_folder_in_place_of_the_audit_log_fails_before_the_ref_moves(mem, store_path):
    mem("init")
    mem("remember", "project/a/k1", "v1", env=PERSON)
    audit = store_path / "logs" / "audit"
    audit.unlink()
    audit.mkdir()
    r = mem("remember", "project/a/k9", "newval", env=PERSON, exit_code=13)
    assert "damaged audit log" in r.stderr and "was not moved" in r.stderr
    mem("get", "project/a/k9", exit_code=4)
    # test30c T5: the refused new key left no version for fsck to call a lost ref, nor for a repair to publish
    audit.rmdir()
    assert "0 problems" in mem("fsck").stdout
    mem("fsck", "--repair", exit_code=None)
    mem("get", "project/a/k9", exit_code=4)


def test_lock_and_cache_paths_of_the_wrong_type_are_named_not_internal_errors(mem, store_path):
    """test30 R1's other paths: ``locks/`` a file, ``locks/store.lock`` a
    folder, ``cache/`` a file: exit 13 naming the path, nothing written
    (they were internal errors, and the value's write was unclear)."""
    import shutil
    mem("init")
    mem("remember", "project/a/k", "v", env=PERSON)
    locks = store_path / "locks"
    shutil.rmtree(locks)
    locks.write_text("x")
    r = mem("remember", "project/a/k9", "newval", env=PERSON, exit_code=13)
    assert "locks: not a folder" in r.stderr and "nothing was written" in r.stderr
    locks.unlink()
    locks.mkdir()
    (locks / "store.lock").mkdir()
    r = mem("gc", exit_code=13)
    assert "store.lock: not a file" in r.stderr
    (locks / "store.lock").rmdir()
    mem("get", "project/a/k9", exit_code=4)
    cache = store_path / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.write_text("x")
    r = mem("gc", exit_code=13)
    assert "cache is a file, not a folder" in r.stderr and "internal error" not in r.stderr   # (fresh40 F4: the
    assert "mem fsck --repair" in r.stderr                                                  # store is refused)


def test_a_file_in_place_of_objects_or_logs_is_named_by_every_command(mem, store_path):
    """test30c T12: ``logs/`` or ``objects/`` a file was an internal error
    in ``fsck``, ``gc`` and ``remember``; now every command exits 13 naming
    it, and doctor gives the fix."""
    import shutil
    mem("init")
    mem("remember", "project/a/k", "v", env=PERSON)
    for name in ("logs", "objects"):
        saved = store_path / f"{name}.saved"
        shutil.move(str(store_path / name), saved)
        (store_path / name).write_text("x")
        for args in (("fsck",), ("gc",), ("remember", "project/a/k2", "v2")):
            r = mem(*args, env=PERSON, exit_code=13)
            assert f"{name} is a file, not a folder" in r.stderr and "internal error" not in r.stderr, r.stderr
        d = json.loads(mem("doctor", "--json", exit_code=1).stdout)
        assert any(f"move {store_path / name} out of the way" in f["fix"] for f in d["findings"])
        (store_path / name).unlink()
        shutil.move(str(saved), store_path / name)
    assert mem("get", "project/a/k").stdout.strip() == "v"


def _grow_audit(mem, n: int = 30) -> None:
    """Writes to other keys, so the audit log (every key's lines) is larger
    than any reflog or new object a following write appends to."""
    for i in range(n):
        mem("remember", f"project/a/other{i}", f"another value {i}", env=PERSON)


def test_a_write_whose_audit_line_fails_names_the_audit_log_not_a_reflog_repair(mem, store_path):
    """test30c T17: when the audit append fails after the ref and its reflog
    line are written, the message names the audit log and a fix that
    applies (it said "its log line" and sent people to ``fsck --repair``,
    which adds reflog lines only); fsck finds no reflog line missing."""
    mem("init")
    mem("remember", "project/a/k", "first value", env=PERSON)
    _grow_audit(mem)
    audit = store_path / "logs" / "audit"
    p = subprocess.run([sys.executable, "-m", "cmds", "remember", "project/a/k", "second value narwhal"],
                       env={**os.environ, **PERSON, **NO_PYC}, cwd=REPO, capture_output=True, text=True, timeout=120,
                       preexec_fn=_limited(audit.stat().st_size))
    assert p.returncode == 13, (p.stdout, p.stderr)
    assert "its audit log line (logs/audit) could not be written" in p.stderr, p.stderr
    assert "do not run it again" in p.stderr and "make logs/audit writable" in p.stderr
    assert "fsck --repair" not in p.stderr and "reflog line could not" not in p.stderr
    assert mem("get", "project/a/k").stdout.strip() == "second value narwhal"
    assert "its reflog does not record this move" not in mem("fsck").stdout     # the reflog line is there
    assert "second value narwhal" not in audit.read_text() and len(mem("reflog", "project/a/k").stdout.splitlines()) == 2


def test_the_prompt_hook_confirms_and_injects_when_the_audit_line_fails(mem, store_path, tmp_path):
    """test30c T17, the hook: a "remember that …" stored while the audit
    append fails is confirmed ("Remembered …", saying its audit line was
    lost), and the prompt's injection does not depend on the audit append
    (recording the injected facts' use failed and took the injection with
    it: nothing was said and nothing injected)."""
    from tests.hooks._util import hook_env
    mem("init")
    mem("remember", "project/api/db-host", "the db host is pg-audit-7", env=PERSON)
    _grow_audit(mem)
    audit = store_path / "logs" / "audit"
    api = tmp_path / "w" / "api"
    api.mkdir(parents=True)
    before = audit.read_bytes()

    def hook(prompt: str) -> str:
        data = {"hook_event_name": "UserPromptSubmit", "session_id": "5e55a17e-0000-4000-8000-000000000017",
                "cwd": str(api), "prompt": prompt, "transcript_path": "/nonexistent.jsonl"}
        p = subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], input=json.dumps(data), text=True,
                           env=hook_env(store_path, **NO_PYC), cwd=REPO, capture_output=True, timeout=120,
                           preexec_fn=_limited(len(before)))
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)["hookSpecificOutput"]["additionalContext"] if p.stdout.strip() else ""

    said = hook("remember that the queue is rabbit-5")
    assert "Remembered as you asked (user_stated): project/api/remembered/queue = the queue is rabbit-5" in said
    assert "its audit log line could not be written" in said
    assert mem("get", "project/api/remembered/queue").stdout.strip() == "the queue is rabbit-5"
    assert "pg-audit-7" in hook("which db host should the api use?")
    assert audit.read_bytes() == before            # every audit append failed: the case under test
    # the audit log writable again: the same prompt is confirmed without the note
    again = subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], text=True, cwd=REPO,
                           input=json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s-t17-b",
                                             "cwd": str(api), "prompt": "remember that the queue is rabbit-6",
                                             "transcript_path": "/nonexistent.jsonl"}),
                           env=hook_env(store_path), capture_output=True, timeout=120)
    out = json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "project/api/remembered/queue = the queue is rabbit-6" in out and "could not be written" not in out


def test_a_forget_whose_audit_line_fails_says_to_run_it_again(mem, store_path):
    """test31b V7: a forget that stopped when its audit line could not be
    written said the writers' "do not run it again", and a person who
    followed it left the text stored.  It says to run it again, and doing
    so (with the space back) finishes it."""
    mem("init")
    mem("remember", "project/a/k", "db pg-1 codeword ember-lynx-3311", env=PERSON)
    mem("remember", "user/note", "ember-lynx-3311 is also here", env=PERSON)
    _grow_audit(mem)
    audit = store_path / "logs" / "audit"
    p = subprocess.run([sys.executable, "-m", "cmds", "forget", "--match", "ember-lynx-3311", "--yes"],
                       env={**os.environ, **PERSON, **NO_PYC}, cwd=REPO, capture_output=True, text=True, timeout=120,
                       preexec_fn=_limited(audit.stat().st_size))
    assert p.returncode == 13, (p.stdout, p.stderr)
    assert "the forget stopped there and the text is still stored" in p.stderr, p.stderr
    assert "run the same forget again" in p.stderr and "do not run it again" not in p.stderr
    mem("forget", "--match", "ember-lynx-3311", "--yes", env=PERSON)
    mem("scan", "ember-lynx-3311", exit_code=0)
