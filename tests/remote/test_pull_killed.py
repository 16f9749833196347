"""A ``mem pull`` killed (SIGKILL) after it installed the remote's packs and
before or while it set its refs left ``mem fsck`` saying CORRUPT ("ref
facts/...: missing, while N of its versions are stored").  Now the pull
notes the refs it sets for the first time (``objstore.core.pullstop``) and
fsck and doctor name a stopped pull and the ``mem pull`` that finishes it;
``mem fsck --repair`` leaves those refs to the pull (its check does not know
the ``--match`` text rules the merge applies, session 29 cap29), and the
pull run again merges them, a value a ``forget --match`` forgot included.

Real ``mem`` processes on two stores and a folder remote; the killed pull is
a real ``mem pull`` process that SIGKILLs itself at the point named (a
test-only wrapper, as tests/vault/test_seal_killed.py: the product has no
kill hook)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from objstore import scan_store
from tests.conftest import REPO

TEXT = "falcon-umber-4410"

#: the wrapped ``mem`` entry point; ``{patch}`` is the code that makes it kill itself at one point
WRAPPER = """
import os, signal
def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)
{patch}
from cmds.entry import entry
entry()
"""
#: killed once the packs are installed, before the merge sets any ref
AT_MERGE = "from objstore.remote import fetch\nfetch.merge = die"
#: killed in the ref phase: one new key's ref set, the next one not
AT_SECOND_REF = """
from objstore.core.store import Store
moved = Store.update_ref
def update_ref(self, name, *a, **k):
    if name == "facts/project/a/new2":
        die()
    return moved(self, name, *a, **k)
Store.update_ref = update_ref
"""
#: killed after every ref is set, before the index catches up (the journal replay): no note is left
AT_RECOVER = "from objstore.remote import fetch\nfetch.recover = die"


def _homes(tmp_path, mem):
    """Store A (a ``forget --match`` of TEXT done), store B (a clone that
    wrote two new keys, and a key holding TEXT in other letter case that A's
    forget must forget), B pushed: ``(env A, env B, A's root)``."""
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    mem("remember", "project/a/k1", f"{TEXT} is the build host", env=ea)
    mem("remember", "project/a/other", "the runner is in rack four", env=ea)
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    mem("forget", "--match", "falcon-umber", "--yes", env=ea)
    mem("gc", "--prune=now", env=ea)
    mem("remember", "project/a/new1", "the deploy window is tuesday", env=eb)
    mem("remember", "project/a/new2", "the staging db is on host seven", env=eb)
    mem("remember", "project/a/k2", f"use {TEXT.upper()} for builds", env=eb)   # case differs
    mem("push", env=eb)
    return ea, eb, a


def _killed_pull(patch: str, env: dict) -> int:
    p = subprocess.run([sys.executable, "-c", WRAPPER.format(patch=patch), "pull"], cwd=REPO,
                       env={**os.environ, **env}, capture_output=True, timeout=300)
    return p.returncode


def _body(mem, env, key):
    r = mem("get", key, "--json", env=env, exit_code=None)
    return json.loads(r.stdout)["body"] if r.exit_code == 0 else None


@pytest.mark.parametrize("patch", [AT_MERGE, AT_SECOND_REF, AT_RECOVER], ids=["before-refs", "mid-refs", "after-refs"])
def test_a_pull_killed_in_its_ref_phase_is_named_and_finished_by_the_next_pull(tmp_path, mem, patch):
    ea, _eb, a = _homes(tmp_path, mem)
    assert _killed_pull(patch, ea) == -signal.SIGKILL
    notes = list((a / "pull-unfinished").iterdir())
    if patch == AT_RECOVER:    # every ref set: the note went (the journal replay finishes the rest)
        assert notes == []
    else:
        assert len(notes) == 1
        noted = json.loads(notes[0].read_text())
        assert noted["remote"] == "origin"
        assert {"facts/project/a/new1", "facts/project/a/new2", "facts/project/a/k2"} <= set(noted["refs"])
        assert TEXT.upper() not in notes[0].read_text()    # ref names and ids, never a value
    # fsck: no corruption, and a stopped pull's unset refs are named with the command that finishes them
    out = mem("fsck", env=ea).stdout
    assert "0 problems" in out, out
    if patch != AT_RECOVER:
        assert "facts/project/a/new2: not set yet" in out and "run 'mem pull origin' again" in out, out
    doctor = mem("doctor", "--json", env=ea, exit_code=None).stdout
    pulls = [f for f in json.loads(doctor)["findings"] if f["check"] == "pull"]
    if patch == AT_RECOVER:
        assert pulls == []    # every ref is set: nothing is left to the pull
    else:
        assert len(pulls) == 1 and pulls[0]["severity"] == "warning" and "mem pull origin" in pulls[0]["fix"]
        gc = mem("gc", "--dry-run", env=ea).stdout     # test30c T7: the pull sets them, not fsck --repair
        assert "run 'mem pull origin' again" in gc and "fsck --repair" not in gc, gc
    # the next command works; --repair leaves the pull's refs to the pull and never sets the forgotten key
    mem("remember", "project/a/after", "written after the killed pull", env=ea)
    mem("fsck", "--repair", env=ea)
    assert _body(mem, ea, "project/a/k2") is None
    if patch == AT_MERGE:
        assert _body(mem, ea, "project/a/new1") is None   # not set by anything but the pull
    # the pull run again finishes it as an unbroken pull would have
    mem("pull", env=ea)
    assert not any((a / "pull-unfinished").iterdir())
    assert _body(mem, ea, "project/a/new1") == "the deploy window is tuesday"
    assert _body(mem, ea, "project/a/new2") == "the staging db is on host seven"
    assert _body(mem, ea, "project/a/after") == "written after the killed pull"
    assert _body(mem, ea, "project/a/k2") is None
    assert _body(mem, ea, "project/a/other") == "the runner is in rack four"
    out = mem("fsck", env=ea).stdout
    assert "0 problems" in out and "not set yet" not in out, out
    assert not [f for f in json.loads(mem("doctor", "--json", env=ea, exit_code=None).stdout)["findings"]
                if f["check"] == "pull"]
    mem("gc", "--prune=now", env=ea)
    assert scan_store(a, [b"falcon", b"FALCON"]) == []


def test_an_unbroken_pull_leaves_no_note(tmp_path, mem):
    ea, _eb, a = _homes(tmp_path, mem)
    mem("pull", env=ea)
    assert not (a / "pull-unfinished").exists() or not any((a / "pull-unfinished").iterdir())
    assert _body(mem, ea, "project/a/new1") == "the deploy window is tuesday"
