"""A bulk import loads the redaction's one-pass matcher before its first name check (imp34).

``mem import``'s serial head runs the name rule (``importer._credential_named``) over every
transcript path the read ledger does not vouch for, and its serial tail the sub-agent rollups; both
ran the prefilter's substring tests (~10x slower a window) until the process had scanned 1 MiB, which
the bench corpus's import never reaches in its main process (~0.52 MiB: the parse children redact the
turns).  From ``importer.BULK_NAMES`` paths to ask the import calls ``redact.expect_bulk()`` first; a
small import (a hook's catch-up, one new session) still never loads the matcher.  Each case runs in a
new process: the matcher is process-wide state.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.capture.importer import BULK_NAMES

REPO = Path(__file__).resolve().parents[2]
SAMPLE = (REPO / "cmds" / "data" / "sample-projects" / "-home-dev-acme-api"
          / "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl")
#: a file name the name rule refuses (a fake GitHub token): skipped whole, with the matcher as without it
REFUSED = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c.jsonl"

CODE = (
    "import json, sys\n"
    "from objstore import open_store\n"
    "from objstore.capture.importer import import_transcripts\n"
    "from objstore.core.redact import prefilter\n"
    "st = open_store(sys.argv[1], create=True)\n"
    "r = import_transcripts(st, 'claude-code', [sys.argv[2]], workers=0)\n"
    "print(json.dumps({'loaded': bool(prefilter._FAST[0]), 'module': 'ahocorasick_rs' in sys.modules,\n"
    "                  'skipped': r.files_skipped, 'files': r.files, 'errors': r.errors}))\n")


def _corpus(root: Path, n: int) -> Path:
    """``n`` copies of the sample transcript under distinct session-like names, and one refused name."""
    proj = root / "projects" / "-home-u-app"
    proj.mkdir(parents=True)
    for i in range(n):
        shutil.copyfile(SAMPLE, proj / f"00000000-0000-4000-8000-{i:012d}.jsonl")
    shutil.copyfile(SAMPLE, proj / REFUSED)
    return root / "projects"


def _run(tmp_path: Path, n: int) -> dict:
    corpus = _corpus(tmp_path / f"c{n}", n)
    out = subprocess.run([sys.executable, "-c", CODE, str(tmp_path / f"store{n}"), str(corpus)],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_bulk_import_loads_the_matcher_first_and_a_small_one_never(tmp_path):
    try:
        import ahocorasick_rs  # noqa: F401  (the memvcs[fast] extra)
    except ImportError:
        pytest.skip("the optional matcher (memvcs[fast]) is not installed")
    bulk = _run(tmp_path, BULK_NAMES)
    # the matcher loaded although the import scanned far less than 1 MiB in this process
    assert bulk["loaded"] and bulk["module"]
    # the rule's verdicts are the matcher's as the substring tests': the token-named file alone skipped
    assert bulk["skipped"] == 1 and bulk["files"] == BULK_NAMES
    assert any("file name holds a credential" in e for e in bulk["errors"])
    assert not any("ghp_Ab3d" in e for e in bulk["errors"])
    small = _run(tmp_path, 2)
    assert not small["loaded"] and not small["module"]
    assert small["skipped"] == 1 and any("file name holds a credential" in e for e in small["errors"])
