"""A JSON file that is no transcript (``{"x":1}``, ``[1,2]``, named
``*.jsonl``) was counted as a transcript of 0 turns and the import exited 0
(lane fix16, defect 3).  A file is a transcript when a line is a record
its harness writes (agent-formats §2.2 / §3.1), so a folder of only such
files exits 2 as a folder of binary files does, while a real transcript of
only ``summary`` or ``file-history-snapshot`` records is still one."""

from __future__ import annotations

import json

import pytest

NOT_RECORDS = ['{"x":1}', '[1,2]', '{"type":"note","text":"hello"}', '{"type":{"a":1}}', '"just a string"']


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_a_folder_of_json_that_is_no_transcript_exits_2(mem, tmp_path, harness):
    home, folder = str(tmp_path / "s"), tmp_path / "json"
    folder.mkdir()
    for i, line in enumerate(NOT_RECORDS):
        (folder / f"rollout-{i}.jsonl").write_text(line + "\n" + line + "\n")
    r = mem("--home", home, "import", harness, str(folder), "--json", exit_code=2)
    out = json.loads(r.stdout)
    n = len(NOT_RECORDS)
    assert (out["files"], out["files_skipped"], out["files_not_transcripts"]) == (0, n, n), out
    assert sum(f"not a {harness} transcript" in line for line in r.stderr.splitlines()) == n


def test_a_transcript_of_only_titles_or_snapshots_is_still_one(mem, tmp_path):
    home, folder = str(tmp_path / "s"), tmp_path / "proj"
    folder.mkdir()
    (folder / "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33.jsonl").write_text(
        '{"type":"summary","summary":"Fix the flaky tests","leafUuid":"6df243bd-aee9-5107-bc0d-3d941d46e438"}\n')
    (folder / "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl").write_text(json.dumps(
        {"type": "file-history-snapshot", "messageId": "ff2f7533-fa1a-5814-9b48-63c285bdc924",
         "snapshot": {"messageId": "ff2f7533", "trackedFileBackups": {}, "timestamp": "2026-03-02T09:00:00.000Z"},
         "isSnapshotUpdate": False}) + "\n")
    out = json.loads(mem("--home", home, "import", "claude-code", str(folder), "--json").stdout)
    assert (out["files"], out["files_skipped"], out["files_not_transcripts"]) == (2, 0, 0), out


def test_a_codex_rollout_of_records_a_later_version_adds_is_still_one(mem, tmp_path):
    home, folder = str(tmp_path / "s"), tmp_path / "codex"
    folder.mkdir()
    (folder / "rollout-2026-03-02T10-00-00-0199a1b2-5c3d-7e10-8f00-00000000000c.jsonl").write_text(
        '{"timestamp":"2026-03-02T10:00:00.000Z","type":"future_kind","payload":{"x":1}}\n')
    out = json.loads(mem("--home", home, "import", "codex", str(folder), "--json").stdout)
    assert (out["files"], out["files_not_transcripts"]) == (1, 0), out
