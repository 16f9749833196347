"""test16b B2: one flipped byte in the remote's manifest (the age header's
recipient stanza, mtime kept) was reported as a wrong sync key (exit 12),
sending the user to look for another key.  The key is checked against the
public key the remote's descriptor names first, so a manifest that does
not open with that key is damage: exit 13, "the remote's manifest is
damaged", with the repair hint; ``mem push --repair`` from the machine
that has the data mends it.  Real ``mem`` processes, a folder remote."""

from __future__ import annotations

import os

import pytest


def _flip(path, at: int) -> None:
    st = os.stat(path)
    b = bytearray(path.read_bytes())
    b[at] ^= 1
    path.write_bytes(bytes(b))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("at", [40, 60, 90])
def test_a_flipped_byte_in_the_manifest_is_damage_not_a_wrong_key(tmp_path, mem, at):
    rem = tmp_path / "rem"
    rem.mkdir()
    for i in range(3):
        mem("remember", f"project/r/k{i}", f"value {i}")
    mem("remote", "add", "origin", str(rem))
    mem("push")
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"))
    b = {"MEM_HOME": str(tmp_path / "b")}
    mem("clone", str(rem), "--key", str(tmp_path / "k.key"), env=b)
    good = (rem / "manifest").read_bytes()
    _flip(rem / "manifest", at)
    for env in (b, None):   # the clone's pull, and the push of the store that created the remote
        r = mem("pull" if env else "push", env=env, exit_code=13)
        assert "the remote's manifest is damaged" in r.stderr, r.stderr
        assert "push --repair" in r.stderr and "does not open the remote" not in r.stderr
    mem("push", "--repair")
    assert (rem / "manifest").read_bytes() != good   # written again, whole
    mem("pull", env=b)
    assert mem("get", "project/r/k2", env=b).stdout.strip() == "value 2"


def test_another_key_is_still_a_wrong_key(tmp_path, mem):
    rem = tmp_path / "rem"
    rem.mkdir()
    mem("remember", "project/r/k", "value")
    mem("remote", "add", "origin", str(rem))
    mem("push")
    other = {"MEM_HOME": str(tmp_path / "o")}
    mem("remember", "project/o/k", "other", env=other)
    orem = tmp_path / "orem"
    orem.mkdir()
    mem("remote", "add", "mine", str(orem), env=other)
    mem("push", env=other)   # this store now has a sync key of its own
    r = mem("remote", "add", "theirs", str(rem), env=other, exit_code=None)
    if r.exit_code == 0:
        r = mem("pull", "theirs", env=other, exit_code=None)
    assert r.exit_code == 12 and "damaged" not in r.stderr, r.stderr
