"""``bin/mem`` (the script pip installs) leaves its own folder off
``sys.path``, as ``python -P`` does: a ``bin`` folder holds no module of
the product, and every top-level import of a new process looked there
first (a ``stat`` and five candidate names each: docs/benchmarks.md,
"Session 43 (branch rec43)").  So a module lying beside the script can no
longer stand in for the product's or the standard library's."""

import os
import shutil
import subprocess
import sys

from tests.conftest import REPO


def test_a_package_beside_the_script_does_not_shadow_the_products(tmp_path):
    folder = tmp_path / "bin"
    (folder / "cmds").mkdir(parents=True)
    shutil.copy(REPO / "bin" / "mem", folder / "mem")
    (folder / "cmds" / "__init__.py").write_text("raise SystemExit('the script folder cmds ran')\n")
    (folder / "json.py").write_text("raise SystemExit('the script folder json ran')\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "MEM_HOME": str(tmp_path / "store"), "MEM_NO_HELPER": "1"}
    p = subprocess.run([sys.executable, str(folder / "mem"), "--version"], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=60)
    assert p.returncode == 0 and "script folder" not in p.stderr, p.stderr
    assert p.stdout.startswith("mem, version"), p.stdout
    init = subprocess.run([sys.executable, str(folder / "mem"), "init"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert init.returncode == 0, init.stderr
    p = subprocess.run([sys.executable, str(folder / "mem"), "remember", "project/p/port", "5433", "--json"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert p.returncode == 0 and '"written": true' in p.stdout, p.stderr   # json: the standard library's


def test_with_safe_path_the_first_entry_is_kept(tmp_path):
    """Under ``-P`` Python put no script folder first: the script then
    takes nothing off ``sys.path`` (run without ``site``: the product and
    its dependencies reached by ``PYTHONPATH`` alone, its first entry)."""
    import sysconfig
    folder = tmp_path / "bin"
    folder.mkdir()
    shutil.copy(REPO / "bin" / "mem", folder / "mem")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), sysconfig.get_paths()["purelib"]]),
           "MEM_HOME": str(tmp_path / "store"), "MEM_NO_HELPER": "1"}
    p = subprocess.run([sys.executable, "-S", "-P", str(folder / "mem"), "--version"], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("mem, version"), p.stderr
