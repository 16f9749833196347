"""``mem import claude-code|codex`` of what is no transcript at all (fix14):
/dev/urandom, a FIFO, a binary file, a folder of binary files exited 0 as
if something had been imported.  Each such file is skipped, counted
(``files_not_transcripts``) and named on stderr; when every file found is
one, the import exits 2 and stores nothing; a folder that also holds a
transcript exits 0 with the count."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects" / "-home-dev-acme-api"
TRANSCRIPT = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"


def _binary(path: Path, n: int = 6000) -> Path:
    path.write_bytes(os.urandom(n) + b"\n\x00\xff" + os.urandom(n))
    return path


def _sessions(mem, home) -> str:
    return mem("--home", home, "sessions", exit_code=None).stdout


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_nothing_that_is_a_transcript_exits_2_and_stores_nothing(mem, tmp_path, harness):
    home = str(tmp_path / "s")
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    folder = tmp_path / "bins"
    folder.mkdir()
    for i in range(3):
        _binary(folder / f"rollout-{i}.jsonl")
    for path in ("/dev/urandom", str(fifo), str(_binary(tmp_path / "one.jsonl")), str(folder)):
        r = mem("--home", home, "import", harness, path, exit_code=2, timeout=60)
        assert f"nothing given is a {harness} transcript" in r.stderr and "nothing stored" in r.stderr
        assert "skipped" in r.stdout
    r = mem("--home", home, "import", harness, str(folder), "--json", exit_code=2)
    out = json.loads(r.stdout)
    assert (out["files"], out["files_skipped"], out["files_not_transcripts"], out["turns_added"]) == (0, 3, 3, 0)
    assert json.loads(r.stderr.strip().splitlines()[-1])["code"] == 2
    assert sum("not a " + harness + " transcript" in line for line in r.stderr.splitlines()) == 3


def test_a_folder_with_a_transcript_and_binary_files_exits_0_with_the_count(mem, tmp_path):
    home, folder = str(tmp_path / "s"), tmp_path / "proj"
    folder.mkdir()
    shutil.copy(SAMPLE / TRANSCRIPT, folder / TRANSCRIPT)
    _binary(folder / "0badc0de-0000-4000-8000-000000000000.jsonl")
    r = mem("--home", home, "import", "claude-code", str(folder), "--json")
    out = json.loads(r.stdout)
    assert (out["files"], out["files_skipped"], out["files_not_transcripts"]) == (1, 1, 1)
    assert out["turns_added"] > 0 and "not a claude-code transcript" in r.stderr
    assert "5f0c9a52" in _sessions(mem, home)
    # the skipped file's lines are not counted again as bad lines (test26 V14): the transcript's own alone
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(SAMPLE / TRANSCRIPT, alone / TRANSCRIPT)
    own = json.loads(mem("--home", str(tmp_path / "s2"), "import", "claude-code", str(alone), "--json").stdout)
    assert out["lines_skipped"] == own["lines_skipped"] == 1, (out, own)
    again = mem("--home", home, "import", "claude-code", str(folder))   # the binary file is said again
    assert "and skipped 1" in again.stdout and "1 unchanged file not read again" in again.stdout


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_a_folder_of_files_none_named_as_a_transcript_exits_2_an_empty_one_0(mem, tmp_path, harness):
    """A folder holding only a binary file (no .jsonl) exited 0 with "no
    transcripts found" (tester s14): its files are there and none is a
    transcript, as for files_not_transcripts, so exit 2; an empty folder
    is nothing to import yet (exit 0, the hint); /dev/urandom is named once."""
    home = str(tmp_path / "s")
    folder = tmp_path / "bins"
    folder.mkdir()
    _binary(folder / "blob.bin")
    r = mem("--home", home, "import", harness, str(folder), exit_code=2)
    assert f"nothing given is a {harness} transcript: {folder} holds 1 file, none named as one" in r.stderr
    r = mem("--home", home, "import", harness, str(folder), "--json", exit_code=2)
    assert json.loads(r.stdout)["files_other"] == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    r = mem("--home", home, "import", harness, str(empty))
    assert f"no {harness} transcripts found under {empty}" in r.stderr
    r = mem("--home", home, "import", harness, "/dev/urandom", exit_code=2, timeout=60)
    assert r.stderr.count("/dev/urandom") == 1, r.stderr


def test_the_no_transcripts_hint_never_echoes_a_credential_path(mem, tmp_path):
    """The hints name the folder given as typed: one whose path holds a
    credential is not shown (the name rule of redact.path_holds_credential)."""
    home = str(tmp_path / "s")
    token = "ghp_" + "a1B2" * 9
    folder = tmp_path / token
    folder.mkdir()
    r = mem("--home", home, "import", "claude-code", str(folder))
    assert "no claude-code transcripts found under (a path holding a credential, not shown)" in r.stderr
    _binary(folder / "blob.bin")
    r = mem("--home", home, "import", "claude-code", str(folder), exit_code=2)
    assert "(a path holding a credential, not shown) holds 1 file" in r.stderr
    assert token not in r.stdout + r.stderr


@pytest.mark.parametrize("harness, where", [("claude-code", ".claude/projects"), ("codex", ".codex/sessions"),
                                            ("codex-memory", ".codex/memories")])
def test_a_default_folder_that_does_not_exist_is_nothing_to_import_yet(mem, tmp_path, monkeypatch, harness, where):
    """test25 T11: with no PATHS and no default folder (the harness never ran
    here) the import exited 2 with a click usage block, while the docs give
    exit 0 for a default folder holding nothing: one rule for both now."""
    home = tmp_path / "newhome"
    home.mkdir()
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    r = mem("--home", str(tmp_path / "s"), "import", harness, env={"HOME": str(home)})
    assert "Usage:" not in r.stderr and "yet: " in r.stderr and str(home / where) in r.stderr, r.stderr
    r = mem("--home", str(tmp_path / "s"), "import", harness, "--json", env={"HOME": str(home)})
    assert json.loads(r.stdout)["files"] == 0 and "Usage:" not in r.stderr
