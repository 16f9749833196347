"""mend22: ``cmds.entry.pathlib_alone`` stands in for ``re``, ``fnmatch``
and ``urllib.parse`` while pathlib loads, which saves their imports on
CPython 3.11 only.  3.12's pathlib calls ``fnmatch`` as it loads (the
stand-ins for ``re`` and ``fnmatch`` then stayed bound in ``pathlib`` and
``fnmatch``, every call through them) and 3.13's defers ``urllib.parse``
itself: there it stands in for ``urllib.parse`` alone (3.12) or does
nothing (3.13+).  Run under each CPython found on the machine (pyenv's),
with ``-S`` (no site: ``cmds.entry`` imports only the stdlib)."""

from __future__ import annotations

import glob
import subprocess
import sys

import pytest

from tests.conftest import REPO

PROBE = ("import sys, types\n"
         f"sys.path.insert(0, {str(REPO)!r})\n"
         "import cmds.entry as e\n"
         "assert 'pathlib' not in sys.modules\n"
         "e.pathlib_alone()\n"
         "import pathlib\n"
         "loaded = ('urllib.parse' in sys.modules, 're' in sys.modules)\n"
         "stale = sorted(f'{m.__name__}.{a}' for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)\n"
         "               for a in ('re', 'fnmatch') if isinstance(getattr(m, a, None), types.ModuleType)\n"
         "               and a in sys.modules and getattr(m, a) is not sys.modules[a])\n"
         "print(sys.version_info[1], *loaded, stale, pathlib.Path('/a b').as_uri(),\n"
         "      pathlib.PurePath('x/y.md').match('*.md'))\n")


def _pythons() -> list[str]:
    found = {sys.executable}
    found.update(glob.glob("/root/.pyenv/versions/3.1[1-9]*/bin/python3"))
    found.update(glob.glob("/usr/bin/python3.1[1-9]"))
    return sorted(found)


@pytest.mark.parametrize("python", _pythons())
def test_pathlib_alone_leaves_no_stand_in_bound_and_defers_urllib_where_it_can(python):
    p = subprocess.run([python, "-S", "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    minor, urllib_loaded, re_loaded, rest = p.stdout.split(" ", 3)
    # no module holds a stand-in for a module loaded since (main, 3.12: fnmatch.re, pathlib.fnmatch and
    # pathlib.re; 3.13: glob.re); on 3.11 pathlib keeps its stand-ins by design (re is not loaded)
    assert rest.startswith("[] "), p.stdout
    # urllib.parse not loaded: 3.11 and 3.12 by the stand-in, 3.13 by pathlib itself
    assert urllib_loaded == "False", p.stdout
    assert re_loaded == ("False" if minor == "11" else "True"), p.stdout
    assert rest.endswith(" file:///a%20b True\n"), p.stdout
