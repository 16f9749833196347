"""fresh43 F8: ``mem pull`` from an encrypted remote mending a cut-short
``tombstone-digests`` said nothing ("received no new object"), and on the
tester's batch glued the first pair it appended onto the cut line, so one
pair stayed lost.  Now the cut line is ended first, every lost pair comes
back, fsck is clean and the pull says how many digests it took in."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def _pairs(p) -> set[bytes]:
    return {ln for ln in p.read_bytes().splitlines()[1:] if len(ln) == 129}


def test_a_pull_mends_a_cut_digests_file_and_says_so(mem, tmp_path):
    home, remote = tmp_path / "store", tmp_path / "r"
    remote.mkdir()
    env = {**PERSON, "MEM_HOME": str(home)}
    mem("remote", "add", "o", str(remote), env=env)
    for i in range(5):
        mem("remember", f"project/z/k{i}", f"lynx-harbor-55{i}1 value", env=env)
        mem("forget", f"project/z/k{i}", "--yes", env=env)
    mem("push", env=env)
    p = home / "tombstone-digests"
    whole = _pairs(p)
    assert len(whole) >= 5
    data = p.read_bytes()
    cut = len(data.split(b"\n", 1)[0]) + 1 + 26      # mid the first pair's line: a full disk, a crash
    p.write_bytes(data[:cut])
    assert "can no longer stop" in mem("fsck", env=env).stdout
    r = mem("pull", env=env)
    assert "tombstone digests this store lacked taken in" in r.stdout + r.stderr, r.stdout + r.stderr
    assert _pairs(p) == whole                          # every pair back, none glued onto the cut line
    f = mem("fsck", env=env)
    assert "can no longer stop" not in f.stdout + f.stderr, f.stdout
    mem("remember", "project/z/new", "lynx-harbor-5521 value", env={**env, "MEM_AGENT": "claude"}, exit_code=6)
