"""An import's index stream fixes glibc's mmap threshold (``procmem.fix_mmap_threshold``,
called by ``IndexStream``): a large block freed after the stream is opened goes back to
the OS at once, even after a larger block was freed before (which raises glibc's
default, dynamic threshold and keeps later large blocks in the heap).  Real glibc,
real tantivy, in a child process (the threshold is process-wide); Linux/glibc only."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not os.path.exists("/proc/self/status"),
                                reason="glibc mallopt and /proc: Linux only")

CHILD = textwrap.dedent("""
    import ctypes, hashlib, sys
    from pathlib import Path
    from objstore.index.searchindex import IndexDoc, SearchIndex

    def anon_kb():
        for line in open("/proc/self/status"):
            if line.startswith("RssAnon:"):
                return int(line.split()[1])

    ix = SearchIndex(Path(sys.argv[1]))
    with ix.stream(fresh=True, expected_docs=lambda: 4) as st:   # a bulk import's stream
        for i in range(8):
            st.add(IndexDoc(hashlib.sha256(b"%d" % i).hexdigest(), "turn", "s", 1000 + i, "x", "user",
                            "words to index %d" % i, i))
        st.commit()
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    big = libc.malloc(8 << 20)            # freed: glibc's default threshold would rise to 8 MB
    ctypes.memset(big, 1, 8 << 20)
    libc.free(big)
    before = anon_kb()
    blocks, keep = [], []
    for _ in range(64):                   # 64 x 512 KB, each followed by a 32 KB block kept
        b = libc.malloc(512 << 10)        # (so that a freed one is no part of the heap's free top)
        ctypes.memset(b, 1, 512 << 10)
        blocks.append(b)
        keep.append(libc.malloc(32 << 10))
        ctypes.memset(keep[-1], 1, 32 << 10)
    held = anon_kb() - before
    for b in blocks:
        libc.free(b)
    print(held, anon_kb() - before)
""")


def test_large_blocks_freed_after_an_index_stream_leave_the_process(tmp_path):
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "index")], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True).stdout
    held, left = (int(x) for x in out.split())
    assert held > 32_000, out           # the 34 MB were resident while allocated
    assert left < 8_000, out            # the 32 MB freed went back (glibc's default keeps them: ~34 MB left)
