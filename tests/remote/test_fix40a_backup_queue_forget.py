"""fresh40 F16: after a ``mem backup``, a forget or seal of a key with a
pending review proposal deleted the proposal's object here while the
backup snapshot still named ``queue/<id>``: every later push and backup
failed (exit 4 "no object …"), so both values stayed on the remote for
good, and each failed push left a ``tmp/push-<pid>`` folder behind.  Now
the snapshot loses the ref as the live refs did, the push purges both
values, and ``mem scan`` finds them nowhere."""

from __future__ import annotations

import pytest

PERSON = {"MEM_AGENT": "0"}
ONE, TWO = "value one okapi-lantern", "agent value two quokka-harbour"


@pytest.mark.parametrize("drop", ["forget", "seal"])
def test_forget_or_seal_after_a_backup_with_a_proposal_purges_the_remote(mem, tmp_path, drop):
    home, remote = tmp_path / "store", tmp_path / "remote"
    remote.mkdir()
    env = {**PERSON, "MEM_HOME": str(home)}
    if drop == "seal":
        (tmp_path / "pp").write_text("correct horse battery staple\n")
        mem("vault", "init", "--passphrase-file", str(tmp_path / "pp"), env=env)
    mem("remote", "add", "origin", str(remote), env=env)
    mem("remember", "project/x/k", ONE, env=env)
    mem("remember", "project/x/k", TWO, "--trust", "agent_observed", env=env)
    assert mem("queue", env=env).stdout.count("project/x/k") == 1
    mem("backup", env=env)
    for text in (ONE, TWO):
        assert "remote origin packs/" in mem("scan", text, env=env, exit_code=None).stdout
    if drop == "seal":
        mem("seal", "project/x/k", env=env)
    else:
        mem("forget", "project/x/k", "--yes", env=env)
    mem("push", env=env)
    mem("backup", env=env)
    mem("push", env=env)
    for text in (ONE, TWO):
        r = mem("scan", text, env=env, exit_code=None)
        assert "found nowhere" in r.stdout, (text, r.stdout, r.stderr)
    assert not list((home / "tmp").glob("push-*"))

def test_backup_after_a_key_forget_still_works(mem, tmp_path):
    """The same for a whole key forgotten with no proposal (facts): push and
    backup succeed and the value leaves the backup."""
    home, remote = tmp_path / "store", tmp_path / "remote"
    remote.mkdir()
    env = {**PERSON, "MEM_HOME": str(home)}
    mem("remote", "add", "origin", str(remote), env=env)
    mem("remember", "project/x/k", ONE, env=env)
    mem("remember", "project/x/j", "kept quietly", env=env)
    mem("backup", env=env)
    mem("forget", "project/x/k", "--yes", env=env)
    mem("backup", env=env)
    assert "found nowhere" in mem("scan", ONE, env=env, exit_code=None).stdout
    assert not list((home / "tmp").glob("push-*"))
