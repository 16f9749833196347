"""The lean and hook paths' finder of the project's own modules
(``cmds._ownpyc``): a module whose bytecode is current is loaded from it
without importlib's general path; a changed source, a damaged or
hash-checked bytecode file, a package or extension module of the same
name are left to importlib, so the code that runs is the code CPython's
own loader would run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(sys.flags.optimize or sys.pycache_prefix is not None,
                                reason="the finder stands aside under -O or a pycache prefix")

#: a process that imports the probe modules of a stand-in ``objstore`` package with the finder on
PROBE = textwrap.dedent("""
    import json, sys
    sys.path[:0] = [sys.argv[1], sys.argv[2]]   # the stand-in objstore first, then the real cmds
    from cmds import _ownpyc
    _ownpyc.install()
    out = {}
    for name in sys.argv[3:]:
        m = __import__("objstore." + name, fromlist=["x"])
        out[name] = [m.VALUE, type(m.__loader__).__name__, m.__file__, m.__cached__, m.__spec__.origin,
                     getattr(m, "__path__", None)]
    print(json.dumps(out))
""")


def _run(pkg_root: Path, *names: str, dont_write: bool = False, finder: bool = True, ok: bool = True):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    if dont_write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    code = PROBE if finder else PROBE.replace("_ownpyc.install()", "pass")
    p = subprocess.run([sys.executable, "-c", code, str(pkg_root), str(ROOT), *names], capture_output=True,
                       text=True, env=env, timeout=60)
    if not ok:
        return p
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _write(path: Path, value: str, mtime: int | None = None) -> None:
    path.write_text(f"VALUE = {value!r}\n")
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def test_a_module_with_current_bytecode_is_loaded_from_it_and_a_changed_source_runs(tmp_path):
    pkg = tmp_path / "objstore"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    _write(pkg / "probe.py", "one", mtime=1_700_000_000)
    first = _run(tmp_path, "probe")["probe"]   # importlib's path: it writes the bytecode
    assert first[:2] == ["one", "SourceFileLoader"]
    second = _run(tmp_path, "probe")["probe"]
    assert second[:2] == ["one", "_Loader"]
    assert second[2:] == first[2:]   # __file__, __cached__, origin as importlib gives them
    assert second[2] == str(pkg / "probe.py") and second[3] == str(pkg / "__pycache__" / Path(first[3]).name)

    _write(pkg / "probe.py", "twelve", mtime=1_700_000_000)   # another size, the same mtime
    assert _run(tmp_path, "probe")["probe"][:2] == ["twelve", "SourceFileLoader"]
    assert _run(tmp_path, "probe")["probe"][:2] == ["twelve", "_Loader"]
    _write(pkg / "probe.py", "sixsix", mtime=1_700_000_100)   # the same size, a later mtime
    assert _run(tmp_path, "probe")["probe"][:2] == ["sixsix", "SourceFileLoader"]
    assert _run(tmp_path, "probe")["probe"][:2] == ["sixsix", "_Loader"]

    _write(pkg / "probe.py", "ten", mtime=1_700_000_200)   # not written again: the source still runs
    assert _run(tmp_path, "probe", dont_write=True)["probe"][:2] == ["ten", "SourceFileLoader"]
    assert _run(tmp_path, "probe", dont_write=True)["probe"][:2] == ["ten", "SourceFileLoader"]


@pytest.mark.parametrize("damage", ["short", "magic", "hash-checked", "garbage"])
def test_a_damaged_or_other_kind_of_bytecode_file_is_left_to_importlib(tmp_path, damage):
    pkg = tmp_path / "objstore"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    _write(pkg / "probe.py", "one", mtime=1_700_000_000)
    cached = Path(_run(tmp_path, "probe")["probe"][3])
    data = cached.read_bytes()
    cached.write_bytes({"short": data[:12], "magic": b"\0\0\0\0" + data[4:],
                        "hash-checked": data[:4] + b"\3\0\0\0" + data[8:],
                        "garbage": data[:16] + b"\xff" * 40}[damage])
    if damage == "garbage":   # a current header over bytes that are no code: marshal's error, as importlib's own
        for finder in (True, False):
            p = _run(tmp_path, "probe", dont_write=True, finder=finder, ok=False)
            assert p.returncode == 1 and "ValueError: bad marshal data" in p.stderr, p.stderr
        return
    assert _run(tmp_path, "probe", dont_write=True)["probe"][:2] == ["one", "SourceFileLoader"]


def test_a_package_or_an_extension_of_the_same_name_keeps_importlibs_order(tmp_path):
    pkg = tmp_path / "objstore"
    (pkg / "both").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "both" / "__init__.py").write_text("VALUE = 'package'\n")
    _write(pkg / "both.py", "module")
    _write(pkg / "plain.py", "plain")
    _run(tmp_path, "both", "plain")
    got = _run(tmp_path, "both", "plain")
    assert got["both"][:2] == ["package", "SourceFileLoader"] and got["both"][5] == [str(pkg / "both")]
    assert got["plain"][:2] == ["plain", "_Loader"]
