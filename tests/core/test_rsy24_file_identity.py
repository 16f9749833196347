"""Lane rsy24: ``fileid.identity`` reads a file by descriptor and ``pread``
(a catch-up takes one of every transcript); its digest stays the one
docs/format.md specifies for the read ledger: BLAKE3 (16 bytes) of the
first 4,096 bytes followed by the last 4,096, the whole file when it is at
most 8,192 bytes.  Real files of every size around the edges."""

from __future__ import annotations

import os

from blake3 import blake3

from objstore.core.fileid import identity


def _spec(data: bytes) -> str:
    edges = data if len(data) <= 8192 else data[:4096] + data[-4096:]
    return blake3(edges).hexdigest(length=16)


def test_identity_is_the_stat_and_the_specified_edge_digest(tmp_path):
    for n in (0, 1, 4095, 4096, 4097, 8191, 8192, 8193, 12288, 100_001):
        p = tmp_path / f"f{n}"
        data = os.urandom(n)
        p.write_bytes(data)
        st = os.stat(p)
        assert identity(p) == [st.st_dev, st.st_ino, n, st.st_mtime_ns, st.st_ctime_ns, _spec(data)], n
    assert identity(tmp_path / "missing") is None
    assert identity(tmp_path) is None                 # a folder cannot be read as a file


def test_a_rewrite_of_an_edge_changes_the_identity_even_with_the_same_stat(tmp_path):
    p = tmp_path / "t.jsonl"
    data = bytearray(os.urandom(20_000))
    p.write_bytes(data)
    before = identity(p)
    st = os.stat(p)
    data[-1] ^= 1                                     # the last byte, then the times put back
    p.write_bytes(data)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = identity(p)
    assert after[:4] == before[:4] and after[5] != before[5]
