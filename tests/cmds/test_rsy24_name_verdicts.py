"""Lane rsy24 (issue 12, re-sync): ``mem import`` keeps the name rule's
verdict on a transcript's path in the read ledger (``"names"``: the digest
of the rule's code, ``objstore.core.namerule``), so a catch-up with nothing
new does not ask the rule again of the paths it found clean (~90 of ~210 ms
of CPU for the bench corpus).  The verdict is kept only for the same path
under the same rule: a ledger of another rule is checked again whole (a
path that now holds a credential is dropped), and a path given through a
link is always asked.  Real files, real ``mem`` processes; every credential
here is fake."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zlib
from importlib import resources
from pathlib import Path

from tests.conftest import REPO

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))
ANT = "sk-ant-api03-" + "Qm9vZ1x7Tz3RkP0aLw9vN2cYd8Hf1JeUq4sX"


def _ledger(store_path: Path) -> tuple[Path, dict]:
    p = store_path / "cache" / "read-ledger-claude-code.json.z"
    return p, json.loads(zlib.decompress(p.read_bytes()))


def _digest() -> str:
    from objstore.core.namerule import name_rule_digest
    return name_rule_digest()


def _paths_asked(store_path: Path, root: Path) -> tuple[int, int]:
    """(files unchanged, paths the name rule judged) of an import of ``root``
    in a new process: the rule's per-process cache of folder verdicts
    (``redact.names._PATHS``) counts the folders it was asked about."""
    code = ("import sys, objstore\n"
            "from objstore.core.redact import names\n"
            "s = objstore.open_store(sys.argv[1])\n"
            "r = objstore.import_transcripts(s, 'claude-code', [sys.argv[2]])\n"
            "s.close()\n"
            "print(r.files_unchanged, len(names._PATHS))\n")
    out = subprocess.run([sys.executable, "-c", code, str(store_path), str(root)], capture_output=True, text=True,
                         check=True, timeout=120, cwd=REPO).stdout.split()
    return int(out[0]), int(out[1])


def test_a_catch_up_with_nothing_new_does_not_ask_the_rule_again(mem, tmp_path, store_path):
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    n = mem("import", "claude-code", str(root), "--json").json["files"]
    _p, ledger = _ledger(store_path)
    assert ledger["names"] == _digest() and len(ledger["files"]) == n > 1
    unchanged, asked = _paths_asked(store_path, root)
    assert (unchanged, asked) == (n, 0)     # main asked the rule of every folder (asked > 0)
    # a new file beside them is asked (and read); the others are still not
    new = root / "-home-dev-acme-api" / "7a0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a99.jsonl"
    new.write_text(next(root.rglob("*.jsonl")).read_text())
    unchanged, asked = _paths_asked(store_path, root)
    assert unchanged == n and asked >= 1


def test_a_ledger_vouched_by_another_rule_is_checked_again_and_loses_a_credential_path(mem, tmp_path, store_path):
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    n = mem("import", "claude-code", str(root), "--json").json["files"]
    p, ledger = _ledger(store_path)
    # as an older mem, whose rule did not know this token's shape, would have left it
    bad = str(tmp_path / "old" / f"-home-dev-{ANT}" / "5d1e6f0a-0000-4000-8000-00000000f001.jsonl")
    ledger["files"][bad] = [1, 2, 3, 4, 5, "0" * 32]
    ledger["sessions"][bad] = ["5d1e6f0a-0000-4000-8000-00000000f001"]
    ledger["names"] = "nr1:" + "0" * 32
    p.write_bytes(zlib.compress(json.dumps(ledger).encode()))
    r = mem("import", "claude-code", str(root), "--json").json
    assert r["files_unchanged"] == n and r["turns_seen"] == 0      # nothing read again
    _p, ledger = _ledger(store_path)
    assert ledger["names"] == _digest()
    assert bad not in ledger["files"] and bad not in ledger["sessions"] and ANT.encode() not in zlib.decompress(p.read_bytes())
    assert len(ledger["files"]) == n


def test_a_ledger_of_an_older_mem_without_names_is_vouched_for_once(mem, tmp_path, store_path):
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    n = mem("import", "claude-code", str(root), "--json").json["files"]
    p, ledger = _ledger(store_path)
    del ledger["names"]                      # as a mem before session 24 writes it
    p.write_bytes(zlib.compress(json.dumps(ledger).encode()))
    unchanged, asked = _paths_asked(store_path, root)
    assert unchanged == n and asked > 0
    assert _ledger(store_path)[1]["names"] == _digest()
    assert _paths_asked(store_path, root) == (n, 0)


def test_a_path_given_through_a_link_holding_a_credential_is_refused_though_its_target_is_vouched(
        mem, tmp_path, store_path):
    root = tmp_path / "projects"
    shutil.copytree(SAMPLE, root)
    mem("import", "claude-code", str(root), "--json")
    link = tmp_path / f"-home-dev-{ANT}"
    os.symlink(root / "-home-dev-acme-api", link)
    r = mem("import", "claude-code", str(link), "--json", exit_code=None)
    assert "folder holds a credential" in r.stderr and ANT not in r.stdout + r.stderr, r.stderr
    assert json.loads(r.stdout)["files"] == 0 and ANT not in json.dumps(_ledger(store_path)[1])


def _load_namerule(tree: Path):
    spec = importlib.util.spec_from_file_location("namerule_copy", tree / "namerule.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.name_rule_digest()


def test_the_digest_changes_with_any_file_of_the_rule_and_is_none_without_its_sources(tmp_path):
    core = REPO / "objstore" / "core"
    tree = tmp_path / "core"
    shutil.copytree(core / "redact", tree / "redact", ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("namerule.py", "text.py"):
        shutil.copy(core / f, tree / f)
    first = _load_namerule(tree)
    assert first == _digest() and first.startswith("nr1:") and len(first) == 36
    assert _load_namerule(tree) == first                         # the same files, the same digest
    rules = tree / "redact" / "rules.py"
    rules.write_text(rules.read_text() + "\n# one more rule\n")
    assert _load_namerule(tree) not in (first, None)
    text = tree / "text.py"
    shutil.copy(core / "redact" / "rules.py", rules)
    text.write_text(text.read_text() + "\n")
    assert _load_namerule(tree) not in (first, None)
    text.unlink()
    assert _load_namerule(tree) is None
