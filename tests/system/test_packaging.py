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
