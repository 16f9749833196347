"""``mem import`` summary counts say what they count (lane rob11): sessions
"N new, M already stored" (the sessions of unchanged files, not read
again, are already stored: it said "0 already stored"), then the turns read
that were already stored (``--reread`` said "14 already stored" beside the
session counts, in turns); ``--json`` holds the same counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


def test_import_summary_counts_sessions_and_turns_by_name(mem, tmp_path):
    corpus, home = tmp_path / "corpus", str(tmp_path / "s")
    shutil.copytree(SAMPLE, corpus)
    first = json.loads(mem("--home", home, "import", "claude-code", str(corpus), "--json").stdout)
    assert (first["sessions"], first["sessions_new"], first["sessions_already_stored"]) == (3, 3, 0)
    turns = first["turns_added"]
    assert turns > 0 and first["turns_already_stored"] == 0
    r = mem("--home", home, "import", "claude-code", str(corpus))
    assert r.stdout.strip() == ("imported 0 new turns from 3 files (3 sessions incl. 1 sub-agent: 0 new, "
                                "3 already stored; 3 unchanged files not read again)")
    r = mem("--home", home, "import", "claude-code", str(corpus), "--reread")
    assert r.stdout.strip() == ("imported 0 new turns from 3 files (3 sessions incl. 1 sub-agent: 0 new, "
                                f"3 already stored; {turns} turns read again, already stored)")
    again = json.loads(mem("--home", home, "import", "claude-code", str(corpus), "--reread", "--json").stdout)
    assert (again["sessions_new"], again["sessions_already_stored"]) == (0, 3)
    assert (again["turns_added"], again["turns_already_stored"]) == (0, turns)
