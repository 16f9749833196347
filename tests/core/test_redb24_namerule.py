"""redb24 (tester finding U7): the name-rule digest must change whenever a
transcript path's verdict can.  ``capture.transcript.transcript_refused``
combined the rules (the given and the real path, a name and its folder)
outside the code :func:`objstore.core.namerule.name_rule_digest` hashes, so
an edit there kept the read ledger's old "clean" verdicts.  The combination
now lives in :func:`objstore.core.redact.transcript_path_refused`."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import objstore.core.namerule as namerule
from objstore.capture.transcript import transcript_refused
from objstore.core import redact

CORE = Path(namerule.__file__).parent

DIGEST = ("import importlib.util, sys; s = importlib.util.spec_from_file_location('nr', sys.argv[1]); "
          "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); print(m.name_rule_digest())")


def _digest(core: Path) -> str:
    """The digest a fresh process computes for the core tree ``core``."""
    out = subprocess.run([sys.executable, "-c", DIGEST, str(core / "namerule.py")], capture_output=True,
                         text=True, timeout=60, check=True).stdout.strip()
    assert out.startswith("nr1:"), out
    return out


def test_verdict_code_is_in_the_digest():
    """The function that decides is in a file of the hashed package, and
    ``transcript_refused`` only delegates to it (no rule, realpath or
    basename of its own)."""
    src = Path(inspect.getsourcefile(redact.transcript_path_refused)).resolve()
    assert src.parent == (CORE / "redact").resolve()
    body = inspect.getsource(transcript_refused).split('"""')[-1]
    for word in ("name_hits", "path_holds_credential", "realpath", "basename", "dirname"):
        assert word not in body, word


def test_changing_the_verdict_code_changes_the_digest(tmp_path):
    """A copy of the hashed tree, then the same copy with
    ``transcript_path_refused`` edited (it stops reading the folder): the
    digests differ."""
    core = tmp_path / "core"
    core.mkdir()
    shutil.copy(CORE / "namerule.py", core)
    shutil.copy(CORE / "text.py", core)
    shutil.copytree(CORE / "redact", core / "redact", ignore=shutil.ignore_patterns("__pycache__"))
    before = _digest(core)
    assert before == _digest(core)
    names = core / "redact" / "names.py"
    text = names.read_text(encoding="utf-8")
    old = "if name_hits(os.path.basename(p)) or path_holds_credential(os.path.dirname(p)):"
    assert text.count(old) == 1
    names.write_text(text.replace(old, "if name_hits(os.path.basename(p)):"), encoding="utf-8")
    assert _digest(core) != before


def test_verdicts_unchanged(tmp_path):
    """The moved code gives the verdicts it gave: a credential in the name,
    in the folder, behind a symlink; a clean path is read."""
    tok = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
    clean = tmp_path / "proj" / "s.jsonl"
    clean.parent.mkdir()
    clean.write_text("{}\n")
    bad_dir = tmp_path / tok
    bad_dir.mkdir()
    (bad_dir / "s.jsonl").write_text("{}\n")
    link = tmp_path / "proj" / "link.jsonl"
    os.symlink(bad_dir / "s.jsonl", link)
    assert not transcript_refused(clean)
    assert transcript_refused(bad_dir / "s.jsonl")
    assert transcript_refused(tmp_path / "proj" / f"{tok}.jsonl")
    assert transcript_refused(link)
    assert not transcript_refused(link, real=str(clean))
