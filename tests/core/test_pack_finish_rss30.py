"""A pack writer's ``finish`` reads the pack back for its checksum in bounded
chunks (``packwriter._hash_file``), not through one mapping of the whole file,
whose pages stayed in the process's resident memory: a merge's 32 MB pack
raised a 1M import's peak RSS by as much (docs/benchmarks.md, "Session 30
(branch `rss30`)").  Real files, a real pack, in a child process whose peak
RSS is reset (``/proc/self/clear_refs``) just before ``finish``; Linux only."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from blake3 import blake3

from objstore.core.codec import encode_payload
from objstore.core.pack import Pack
from objstore.core.packwriter import HASH_CHUNK, PackWriter, _hash_file

REPO = Path(__file__).resolve().parents[2]

linux = pytest.mark.skipif(not sys.platform.startswith("linux") or not os.path.exists("/proc/self/clear_refs"),
                           reason="/proc/self/clear_refs and VmHWM: Linux only")

CHILD = textwrap.dedent("""
    import os, sys
    from objstore.core.codec import encode_payload
    from objstore.core.packwriter import PackWriter

    def kb(key):
        for line in open("/proc/self/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])

    w = PackWriter(sys.argv[1])
    for i in range(48):                       # 48 MB that deflate cannot shrink
        w.add(encode_payload(5, {"n": i, "data": os.urandom(1 << 20)}))
    w._write_inflight(every=True)             # the last blocks written: what finish reads back is on disk
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                          # VmHWM := VmRSS
    before = kb("VmRSS")
    info = w.finish()
    print(info.size, kb("VmHWM") - before)
""")


@linux
def test_finishing_a_large_pack_does_not_hold_it_resident(tmp_path):
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], env={**os.environ, "PYTHONPATH": str(REPO)},
                         capture_output=True, text=True, check=True, timeout=300).stdout.split()
    size, grew_kb = int(out[0]), int(out[1])
    assert size > 48 << 20
    # through one mapping the whole pack (48 MB) became resident; read back in chunks,
    # the peak grows by a few chunks at most
    assert grew_kb < 4 * HASH_CHUNK // 1024, grew_kb
    (pack,) = [Pack(p) for p in tmp_path.glob("pack-*.idx")]
    assert len(pack) == 48
    assert pack.verify_checksums() == []   # the trailer is the BLAKE3 of the bytes written


def test_the_checksum_read_back_is_the_files_blake3(tmp_path):
    p = tmp_path / "f"
    for n in (0, 1, HASH_CHUNK - 1, HASH_CHUNK, 2 * HASH_CHUNK + 17):
        data = os.urandom(n)
        p.write_bytes(data)
        fd = os.open(p, os.O_RDONLY)
        try:
            assert _hash_file(fd) == blake3(data).digest()
        finally:
            os.close(fd)


def test_a_finished_pack_reads_back_every_object(tmp_path):
    w = PackWriter(tmp_path)
    frames = [encode_payload(5, {"n": i, "data": os.urandom(300_000)}) for i in range(40)]   # ~12 MB: 3 chunks
    ids = [w.add(f) for f in frames]
    info = w.finish()
    pack = Pack(info.idx_path)
    assert len(pack) == len(ids) and pack.verify_checksums() == []
    assert all(pack.get(o) == f for o, f in zip(ids, frames))
