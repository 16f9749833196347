"""test33b T5 (third point): after ``mem fsck --repair`` dropped a
sub-agent summary's ``rollup_of`` edge to a turn it found lost, ``mem
import claude-code DIR --reread`` wrote the summary's identical body again
as v2, valid from today (export then held one fact version more than the
undamaged store).  A reread writes no version whose body equals the
current one.  The repair's edge drop is made by its own step
(``objstore.memory.repair.drop_dangling_edges``, the turn counted as
gone); real ``mem import`` processes on the shared sample with sub-agents."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from objstore.capture.rollup import rollup_edges
from objstore.memory.facts import list_keys, versions
from objstore.memory.opening import open_store
from objstore.memory.repair import drop_dangling_edges
from tests.conftest import REPO, shared_path


def _mem(home: Path, *args: str) -> str:
    p = subprocess.run([sys.executable, "-m", "cmds", *args], env={**os.environ, "MEM_HOME": str(home),
                                                                    "MEM_AGENT": "0"},
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_a_reread_after_a_repair_dropped_an_edge_writes_no_second_identical_summary(tmp_path):
    src = tmp_path / "projects"
    shutil.copytree(shared_path("data", "transcripts", "claude-code-log", "projects", "-experiments-worktrees"),
                    src / "-experiments-worktrees")
    home = tmp_path / "store"
    _mem(home, "import", "claude-code", str(src))
    with open_store(home) as s:
        key = sorted(k for k, _h in list_keys(s) if "/summary/" in k)[0]
        (v1,) = versions(s, key)
        cited = rollup_edges(v1.fact)
        with s.lock("fsck"):
            assert drop_dangling_edges(s, {cited[0]}) == {f"facts/{key}": 1}
        (repaired,) = versions(s, key)
        assert repaired.fact.body == v1.fact.body and len(rollup_edges(repaired.fact)) == len(cited) - 1
    _mem(home, "import", "claude-code", str(src), "--reread")
    with open_store(home) as s:
        after = versions(s, key)
    assert [(v.fact.version, v.fact.body, v.fact.valid_from) for v in after] == \
        [(1, v1.fact.body, v1.fact.valid_from)], [(v.fact.version, v.fact.valid_from) for v in after]
