"""fix16b: a folder remote's bundle changed in one byte in place, its size
unchanged and its mtime set back (``touch -r``): a store that had verified
it compared only size and mtime (its etag is empty for a folder), so pull
took nothing, said nothing and exited 0 while every new clone failed.  The
folder's stamp now carries the blake3 of the file's bytes."""

from __future__ import annotations

import os


def test_pull_notices_a_byte_flipped_in_place_with_its_mtime_kept(mem, tmp_path):
    remote, key = tmp_path / "remote", tmp_path / "sync.key"
    remote.mkdir()
    a, b = ["--home", str(tmp_path / "a")], ["--home", str(tmp_path / "b")]
    mem(*a, "remember", "user/k0", "value 0")
    mem(*a, "remote", "add", "origin", str(remote))
    mem(*a, "push")
    [first] = os.listdir(remote / "packs")
    mem(*a, "remember", "user/k1", "value 1")
    mem(*a, "push")
    mem(*a, "remote", "key", "export", "-o", str(key))
    mem(*b, "clone", str(remote), "--key", str(key))
    mem(*b, "pull")                                    # verified once, its stamps recorded
    p = remote / "packs" / first
    st = p.stat()
    with open(p, "r+b") as f:                          # one byte flipped in place
        f.seek(st.st_size // 2)
        c = f.read(1)
        f.seek(st.st_size // 2)
        f.write(bytes([c[0] ^ 0xFF]))
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))   # touch -r: size and mtime as they were
    assert p.stat().st_size == st.st_size and p.stat().st_mtime_ns == st.st_mtime_ns
    r = mem(*b, "pull", exit_code=13)
    assert f"packs/{first}" in r.stderr and "mem push --repair" in r.stderr, r.stderr
    assert mem(*b, "get", "user/k0").stdout.strip() == "value 0"
    mem(*a, "push", exit_code=13)                      # a push does not build on it either
    mem(*a, "push", "--repair")
    mem(*b, "pull")
    assert mem(*b, "get", "user/k1").stdout.strip() == "value 1"
