"""Every asset under hooks/ is listed in the package data, so a pip install
(not only the source tree) has what `mem shell-init` and the plugin need."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_hooks_assets_are_packaged():
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "hooks" in cfg["packages"]
    patterns = cfg["package-data"]["hooks"]
    files = [p.relative_to(REPO / "hooks").as_posix() for p in (REPO / "hooks").rglob("*") if p.is_file()]
    assert files
    for f in files:
        assert any(fnmatch.fnmatch(f, pat) or (pat.endswith("/**/*") and f.startswith(pat[:-4]))
                   for pat in patterns), f



def test_every_package_is_listed():
    """Every folder of objstore/ and cmds/ holding an __init__.py is in
    pyproject's package list: one left out installs without error from
    `pip install .` and then fails on import (objstore.resident was once)."""
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(REPO).parts) for top in ("objstore", "cmds")
             for p in (REPO / top).rglob("__init__.py") if "__pycache__" not in p.parts}
    assert {"objstore", "objstore.core", "cmds"} <= found
    assert sorted(found - set(cfg["packages"])) == []


def test_objstore_data_files_are_packaged():
    """Every file under objstore/ that is not Python (the word list of
    objstore/index/plainwords.txt) is in its package's package data: a
    non-editable install without it could not write a search index."""
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    data = cfg.get("package-data", {})
    files = [p for p in (REPO / "objstore").rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert any(p.name == "plainwords.txt" for p in files)
    for p in files:
        pkg = ".".join(p.parent.relative_to(REPO).parts)
        assert any(fnmatch.fnmatch(p.name, pat) for pat in data.get(pkg, [])), p
