"""test34b T10: a captured prompt's stored source id ``cc:p:<24 hex>:<n>`` was
the plain SHA-256 of the prompt, computed before redaction: a four-digit code
in a prompt came back from ``mem export`` and from a pushed remote in 10,000
tries.  The stored id is now keyed with the store's hash key
(``promptscan.keyed_hash``); the prompt hook and the transcript reader still
agree on it, and a turn an older mem stored under its plain id is matched,
not stored again.  Real hook processes, real ``mem import``, a real folder
remote (push, clone, export)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from objstore.capture.promptscan import prompt_hash
from objstore.core.hashkey import KEY_FILE
from objstore.memory.appender import TurnAppender
from objstore.memory.opening import open_store
from objstore.memory.sessions import CapturedTurn
from tests.hooks._util import CWD, REPO, asst, hook_env, line, payload, run_hook, text, turns, user, \
    wait_store_processes_gone

SID = "3c9e0a51-0000-4000-8000-00000000a038"
PIN = "remember that the garage code is %04d"
ALARM = "my alarm pin is %04d, please add it to the runbook"
PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def _mem(home: Path, *args: str) -> subprocess.CompletedProcess:
    e = {**hook_env(home), **PERSON}
    p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=e, cwd=REPO,
                       timeout=300)
    assert p.returncode == 0, f"mem {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def _hook(store: Path, t: Path, prompt: str) -> None:
    rc, _out, err, _s = run_hook(store, payload("UserPromptSubmit", SID, t, prompt=prompt),
                                 env=hook_env(store, MEM_HOOK_FORK="0"), timeout=120)
    assert rc == 0, err
    wait_store_processes_gone(store, timeout=120)


def _session(tmp_path: Path, store: Path) -> Path:
    """Two prompts, each captured by a real prompt hook once its record is written
    (what Claude Code does first), then the answers; the transcript file."""
    d = tmp_path / "claude" / "-home-u-proj"
    d.mkdir(parents=True)
    t = d / f"{SID}.jsonl"
    first = line(user("u1", PIN % 2580, SID))
    t.write_bytes(first)
    _hook(store, t, PIN % 2580)
    second = first + line(asst("a1", "m1", [text("noted")], SID)) + line(user("u2", ALARM % 7391, SID))
    t.write_bytes(second)
    _hook(store, t, ALARM % 7391)
    t.write_bytes(second + line(asst("a2", "m2", [text("added")], SID)))
    return t


def _prompt_ids(export: Path) -> set[str]:
    ids = set(re.findall(r"cc:p:([0-9a-f]{24}):\d+", export.read_text(encoding="utf-8")))
    assert ids, "the export holds no prompt id: the test would prove nothing"
    return ids


def _roles(store: Path) -> list[tuple[str, str]]:
    """(role, source) of the session's turns in order (a prompt's text may be stored redacted)."""
    return [(role, src) for _s, _q, role, _t, src in sorted(turns(store), key=lambda x: x[1])]


def _guessed(ids: set[str]) -> list[str]:
    """Every prompt of the two templates whose plain hash is one of ``ids`` (T10's brute force)."""
    return [tpl % i for i in range(10000) for tpl in (PIN, ALARM) if prompt_hash(tpl % i) in ids]


def test_no_prompt_id_gives_its_value_back_from_export_or_a_pushed_remote(tmp_path):
    store = tmp_path / "A"
    _mem(store, "init")
    t = _session(tmp_path, store)
    _mem(store, "import", "claude-code", str(t))
    exp = tmp_path / "a.jsonl"
    _mem(store, "export", "-o", str(exp))
    assert _guessed(_prompt_ids(exp)) == []

    remote = tmp_path / "usb"
    remote.mkdir()
    _mem(store, "remote", "add", "usb", str(remote), "--no-encrypt")
    _mem(store, "push", "usb")
    _mem(tmp_path / "B", "clone", str(remote))
    exp_b = tmp_path / "b.jsonl"
    _mem(tmp_path / "B", "export", "-o", str(exp_b))
    ids_b = _prompt_ids(exp_b)
    assert _guessed(ids_b) == []
    assert ids_b == _prompt_ids(exp)                 # the ids travel as they are; only the key stays home
    assert not (tmp_path / "B" / KEY_FILE).exists() or \
        (tmp_path / "B" / KEY_FILE).read_bytes() != (store / KEY_FILE).read_bytes()
    assert oct((store / KEY_FILE).stat().st_mode & 0o777) == "0o600"
    assert KEY_FILE not in {p.name for p in remote.rglob("*")}


def test_hook_and_import_store_each_prompt_once(tmp_path):
    """The hook's key and the reader's alias are one id: a later import (and a
    hook's own read of the file) adds the answers, never a prompt again."""
    store = tmp_path / "A"
    _mem(store, "init")
    t = _session(tmp_path, store)
    _mem(store, "import", "claude-code", str(t))
    got = _roles(store)
    assert sorted(r for r, _src in got) == ["assistant", "assistant", "user", "user"], got
    plain = {f"cc:p:{prompt_hash(PIN % 2580)}:1", f"cc:p:{prompt_hash(ALARM % 7391)}:1"}
    srcs = [src for r, src in got if r == "user"]
    assert all(s.startswith("cc:p:") for s in srcs) and not plain & set(srcs), srcs


def test_a_turn_an_older_mem_stored_under_its_plain_id_is_not_stored_again(tmp_path):
    """The upgrade: an older mem's hook stored the first prompt under
    ``cc:p:<plain sha256>:1``; this mem's import of the transcript and its
    hook's next prompt match that id and store the prompt once."""
    store = tmp_path / "A"
    _mem(store, "init")
    d = tmp_path / "claude" / "-home-u-proj"
    d.mkdir(parents=True)
    t = d / f"{SID}.jsonl"
    first = line(user("u1", PIN % 2580, SID))
    t.write_bytes(first)
    old = f"cc:p:{prompt_hash(PIN % 2580)}:1"
    with open_store(store) as s, s.lock("test"):     # what an older mem's prompt hook wrote
        w = TurnAppender(s, command="test")
        assert w.add(CapturedTurn(SID, old, "user", PIN % 2580, 1_767_607_200_000, CWD, "proj"))
        w.publish()
    second = first + line(asst("a1", "m1", [text("noted")], SID)) + line(user("u2", ALARM % 7391, SID))
    t.write_bytes(second)
    _hook(store, t, ALARM % 7391)                    # its pre-sync reads the first prompt's record
    t.write_bytes(second + line(asst("a2", "m2", [text("added")], SID)))
    _mem(store, "import", "claude-code", str(t))
    got = _roles(store)
    assert sorted(r for r, _src in got) == ["assistant", "assistant", "user", "user"], got
    srcs = [src for r, src in got if r == "user"]
    assert srcs[0] == old                            # kept as it was stored (see docs/format.md)
    assert srcs[1].startswith("cc:p:") and srcs[1] != f"cc:p:{prompt_hash(ALARM % 7391)}:1"  # new: keyed


def test_a_fresh_import_after_the_cursor_is_gone_matches_the_legacy_id(tmp_path):
    """No cursor (a new machine's catch-up of the same files, a damaged cache):
    the whole transcript is read again; the prompt an older mem stored is known."""
    store = tmp_path / "A"
    _mem(store, "init")
    d = tmp_path / "claude" / "-home-u-proj"
    d.mkdir(parents=True)
    t = d / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", PIN % 2580, SID)) + line(asst("a1", "m1", [text("noted")], SID)))
    old = f"cc:p:{prompt_hash(PIN % 2580)}:1"
    with open_store(store) as s, s.lock("test"):
        w = TurnAppender(s, command="test")
        w.add(CapturedTurn(SID, old, "user", PIN % 2580, 1_767_607_200_000, CWD, "proj"))
        w.publish()
    from objstore import sync_files
    with open_store(store) as s:
        sync_files(s, [t], final=True)
    assert _roles(store) == [("user", old), ("assistant", "cc:msg:m1")]
    assert os.path.exists(store / KEY_FILE)
