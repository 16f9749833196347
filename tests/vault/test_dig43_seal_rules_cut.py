"""test42 T25: ``seal-rules`` cut short mid-file (a crash, a sync) lost a
sealed key's rule lines: an agent then wrote the exact sealed value in the
clear, the prompt hook captured it verbatim, and ``mem fsck`` exited 0 under
a warning.  Now, while the file is damaged (cut short, or a line that does
not parse) and a key is sealed, every write and captured turn is refused
(exit 13; the hook exits 0 and stores nothing), fsck exits 13, and ``mem
sealed rebuild-rules`` ends it.  The warning of a store with no sealed key
says each damage as it is.  Real ``mem`` processes and real hook events."""

from __future__ import annotations

import json
import time

import pytest

from tests.hooks._util import hook_env, run_hook, turns

PERSON = {"MEM_AGENT": "0"}
AGENT = {"MEM_AGENT": "claude"}
SECRET = "sky-4419-blue"


def _sealed_store(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/home/alarm", SECRET, "--sensitivity", "secret", env=PERSON)
    return home, h, pp


@pytest.mark.parametrize("damage", ["cut", "garbage"])
def test_damaged_seal_rules_with_a_sealed_key_refuse_every_write(mem, tmp_path, damage):
    home, h, pp = _sealed_store(mem, tmp_path)
    rules = home / "seal-rules"
    raw = rules.read_bytes()
    if damage == "cut":   # mid-way through the first rule line: the key's rules are lost
        rules.write_bytes(raw[:raw.index(b"\n") + 30])
    else:
        rules.write_bytes(raw + b"[[[ garbage\n")
    if damage == "garbage":   # its rule is still read: refused as the sealed value it is
        mem(*h, "remember", "project/a/d", SECRET, env=AGENT, exit_code=6)
    else:
        r = mem(*h, "remember", "project/a/d", SECRET, env=AGENT, exit_code=13)
        assert "seal-rules is damaged (cut short" in r.stderr and "rebuild-rules" in r.stderr, r.stderr
    r = mem(*h, "remember", "project/a/e", "a plain value", env=AGENT, exit_code=13)   # a lost line: any value
    assert "seal-rules is damaged" in r.stderr and "rebuild-rules" in r.stderr, r.stderr
    assert "project/a/d" not in mem(*h, "keys").stdout
    rc, _o, _e, _s = run_hook(home, {"hook_event_name": "UserPromptSubmit", "session_id": "s-t25", "cwd": str(tmp_path),
                                     "prompt": f"the alarm is {SECRET} ok"}, env=hook_env(home))
    assert rc == 0
    time.sleep(2)
    assert not any(SECRET in t[3] for t in turns(home))
    f = mem(*h, "fsck", exit_code=13)
    said = "cut short" if damage == "cut" else "a line does not parse"
    assert f"error: seal-rules is damaged ({said}" in f.stdout and "every write" in f.stdout, f.stdout
    assert json.loads(mem(*h, "status", "--json").stdout)["capture_stopped"]
    mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON)
    assert "seal-rules" not in mem(*h, "fsck").stdout
    mem(*h, "remember", "project/a/d", SECRET, env=AGENT, exit_code=6)   # the sealed value: refused as such
    mem(*h, "remember", "project/a/e", "a plain value", env=AGENT)


def test_garbage_after_forgotten_rules_is_said_as_it_is(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "remember", "project/p/tok", "zebra-lantern-7781", env=PERSON)
    mem(*h, "forget", "project/p/tok", "--yes", env=PERSON)
    rules = home / "seal-rules"
    rules.write_bytes(rules.read_bytes() + b"[[[ garbage\n")
    f = mem(*h, "fsck")   # no sealed key: a warning, writes go on
    assert "a line does not parse" in f.stdout and "whose rule was on the line that does not parse" in f.stdout, \
        f.stdout
    mem(*h, "remember", "project/a/e", "a plain value", env=AGENT)
