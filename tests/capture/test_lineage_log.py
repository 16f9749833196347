"""The lineage cache is one appended file (``cache/lineage.log``), and the
one-file-per-message layout of older stores is still read."""

from __future__ import annotations

import os
from pathlib import Path

from objstore.capture.sync import LINEAGE_LOG, lineage_sessions

H1, H2 = "a" * 32, "b" * 32


def test_appended_lines_are_seen_and_a_torn_line_is_not(tmp_path: Path) -> None:
    log = tmp_path / LINEAGE_LOG
    assert lineage_sessions(tmp_path, H1) == []
    log.write_text(f"{H1} s-1\n{H2} s 2\n", encoding="utf-8")
    assert lineage_sessions(tmp_path, H1) == ["s-1"] and lineage_sessions(tmp_path, H2) == ["s 2"]
    with open(log, "a", encoding="utf-8") as f:  # another process appends, the last line torn
        f.write(f"{H1} s-3\n{H1} s-")
    assert lineage_sessions(tmp_path, H1) == ["s-1", "s-3"]
    with open(log, "a", encoding="utf-8") as f:
        f.write("4\n")
    assert lineage_sessions(tmp_path, H1) == ["s-1", "s-3", "s-4"]
    os.replace(_write(tmp_path / "new", f"{H2} s-9\n"), log)  # replaced (deleted and written again)
    assert lineage_sessions(tmp_path, H1) == [] and lineage_sessions(tmp_path, H2) == ["s-9"]


def test_an_older_stores_files_are_read(tmp_path: Path) -> None:
    (tmp_path / "lineage").mkdir()
    (tmp_path / "lineage" / H1).write_text("old-1\nold-2\n", encoding="utf-8")
    assert lineage_sessions(tmp_path, H1) == ["old-1", "old-2"]
    (tmp_path / LINEAGE_LOG).write_text(f"{H1} new-1\n{H1} old-2\n", encoding="utf-8")
    assert lineage_sessions(tmp_path, H1) == ["old-1", "new-1", "old-2"]


def _write(p: Path, text: str) -> Path:
    p.write_text(text, encoding="utf-8")
    return p
