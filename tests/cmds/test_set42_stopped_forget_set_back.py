"""A forget stopped after its tombstones (the index journal names its
deletes) while a synced folder sets the key's ref back to the version the
forget removes (test41 T28): every write, and ``mem fsck --repair`` whose
hint they all give, stopped with exit 13 on the set-back refusal, and the
forgotten value stayed current.  The repair sets the ref forward, then
finishes the forget.  Real ``mem`` processes, a real SIGKILL, the ref file
put back as a sync would."""

from __future__ import annotations

import shutil
import signal

from tests.conftest import signal_forget_midway

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
OLD, NEW = "alpha-value-one-1111", "beta-value-two-2222"


def _found(mem, env) -> list[str]:
    """The places ``mem scan OLD`` finds it (objects read decoded, the index)."""
    return [p["place"] for p in mem("scan", OLD, "--no-remotes", "--json", env=env, exit_code=None).json]


def _stuck_store(mem, tmp_path):
    """A store whose forget of OLD was killed once its journal names its
    deletes (before its history rewrite), the ref then set back to OLD's
    version; retried on a fresh store if the forget ended before the kill."""
    for attempt in range(4):
        home = tmp_path / f"s{attempt}"
        env = {**PERSON, "MEM_HOME": str(home)}
        mem("init", env=env)
        mem("remember", "user/k", OLD, env=env)
        shutil.copy(home / "refs" / "facts" / "user" / "k", tmp_path / "old-ref")
        mem("remember", "user/k", NEW, env=env)
        try:
            code, _err = signal_forget_midway(home, ["--match", OLD], signal.SIGKILL, env)
        except AssertionError:   # it finished first: a fresh store
            continue
        assert code == -signal.SIGKILL
        shutil.copy(tmp_path / "old-ref", home / "refs" / "facts" / "user" / "k")   # a synced folder's older copy
        return home, env
    raise AssertionError("the forget always ended before it could be killed")


def test_fsck_repair_sets_the_ref_forward_then_finishes_the_stopped_forget(mem, tmp_path):
    home, env = _stuck_store(mem, tmp_path)
    assert mem("get", "user/k", env=env).stdout.strip() == OLD            # the stuck state: OLD served
    assert "set back" in mem("remember", "user/other", "x", env=env, exit_code=13).stderr
    assert _found(mem, env)

    r = mem("fsck", "--repair", env=env, exit_code=0)
    assert "restored facts/user/k" in r.stdout
    assert mem("get", "user/k", env=env).stdout.strip() == NEW
    assert _found(mem, env) == []                                         # gone from objects and index
    log = mem("log", "user/k", env=env).stdout
    assert "forgotten at" in log and OLD not in log                       # its place kept, its value gone
    assert len(list((home / "refs" / "tombstones").iterdir())) >= 1       # the tombstone stays
    assert not (home / "index-journal").read_bytes()
    assert not list((home / "forget-unfinished").glob("*"))
    assert "ok:" in mem("fsck", env=env).stdout
    mem("remember", "user/other", "x", env=env)                            # writes work again
