"""objstore.core.cborext: cbor2's C codec without the package's __init__
(and its ``typing``), one codec per process either way."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

SCRIPT = r"""
import sys
from objstore.core.cborext import cbor2 as ext
assert ext.__name__ == "cbor2._cbor2", ext.__name__
assert "typing" not in sys.modules and "cbor2" not in sys.modules, sorted(m for m in sys.modules if "typ" in m or "cbor" in m)
value = {"key": "project/x", "n": 7, "b": b"\x00\xff", "l": ["a", None, True], "neg": -(2**63)}
frame = ext.dumps(value, canonical=True)
assert ext.loads(frame) == value
try:
    ext.loads(b"\xff\x00")
except ext.CBORDecodeError:
    pass
else:
    raise AssertionError("garbage decoded")
import cbor2                                  # the package, imported later by anyone: the same codec
assert sys.modules["cbor2._cbor2"] is ext
assert cbor2.loads is ext.loads and cbor2.CBORDecodeError is ext.CBORDecodeError
assert cbor2.dumps(value, canonical=True) == frame
print("ok")
"""


def test_codec_without_the_package_init_and_one_codec_after_it():
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_package_first_then_cborext_reuses_it():
    p = subprocess.run([sys.executable, "-c", "import cbor2, sys\nfrom objstore.core.cborext import cbor2 as ext\n"
                        "assert ext is sys.modules['cbor2._cbor2'] and ext.loads is cbor2.loads\nprint('ok')"],
                       capture_output=True, text=True, cwd=REPO, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
