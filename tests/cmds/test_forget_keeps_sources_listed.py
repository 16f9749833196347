"""``forget --match TEXT`` where TEXT is in a project path dropped the
transcript's line from cache/imported-files, so ``mem scan TEXT`` said
"found nowhere" and ``--scrub-sources`` "no transcript file holds it"
while the file held it; a word only the forgotten text had dropped the line
of a folder not holding TEXT too (tester test15 (B)).  The line is hidden
(``sha256:`` of the path), never dropped: scan and --scrub-sources find
the file again in the transcript folders."""

from __future__ import annotations

import os
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects" / "-home-dev-acme-api"


def test_a_forgotten_project_path_keeps_its_transcripts_findable(mem, tmp_path, store_path):
    projects = tmp_path / "claude" / "projects"
    for folder, name in (("-home-dev-zebrafinch-orchard-app", "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"),
                         ("-home-dev-zebrafinch", "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33.jsonl")):
        (projects / folder).mkdir(parents=True)
        text = (SAMPLE / name).read_text().replace("/home/dev/acme-api", "/home/dev/zebrafinch-orchard/app")
        (projects / folder / name).write_text(text)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    mem("import", "claude-code", env=env)
    ledger = store_path / "cache" / "imported-files"
    assert len(ledger.read_text().split()) == 2
    mem("forget", "--match", "zebrafinch-orchard", "--yes", env=env)
    lines = ledger.read_text().split()
    assert len(lines) == 2 and all(x.startswith("sha256:") for x in lines), lines   # hidden, both kept
    assert "zebrafinch" not in ledger.read_text()
    r = mem("scan", "zebrafinch-orchard", "--no-remotes", env=env, exit_code=1)
    files = [ln for ln in r.stdout.splitlines() if ln.startswith("transcript ") and ln.endswith("line(s)")]
    folders = [ln for ln in r.stdout.splitlines() if ln.startswith("transcript ") and "its name holds it" in ln]
    assert len(files) == 2 and len(folders) == 1, r.stdout      # (the folder named for the cwd: test28 Y3)
    r = mem("forget", "--match", "zebrafinch-orchard", "--scrub-sources", "--dry-run", env=env)
    assert "would scrub 2 transcript files" in r.stdout, r.stdout
    mem("forget", "--match", "zebrafinch-orchard", "--scrub-sources", "--yes", env=env)
    for f in projects.rglob("*.jsonl"):
        assert "zebrafinch-orchard" not in f.read_text()
    # a later import of the same files does not list their paths in the clear again
    mem("import", "claude-code", env=env)
    assert "zebrafinch" not in ledger.read_text()
    assert os.path.getsize(ledger) > 0


def test_scrub_sources_dry_run_lists_the_files_when_the_store_holds_the_text_too(mem, tmp_path, store_path):
    """``--scrub-sources --dry-run`` lists the transcript files it would
    scrub also when the store still holds the text (final tester D5: the
    files were listed only when nothing was left in the store)."""
    projects = tmp_path / "claude" / "projects"
    name = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"
    (projects / "-home-dev-acme-api").mkdir(parents=True)
    (projects / "-home-dev-acme-api" / name).write_text((SAMPLE / name).read_text())
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    mem("import", "claude-code", env=env)
    word = "acme-api"
    r = mem("forget", "--match", word, "--scrub-sources", "--dry-run", env=env)
    assert "would forget" in r.stdout and "and then would scrub 1 transcript file" in r.stdout, r.stdout
    assert name in r.stdout, r.stdout
    j = mem("forget", "--match", word, "--scrub-sources", "--dry-run", "--json", env=env).json
    assert [Path(p).name for p in j["sources"]] == [name]
    assert word in (projects / "-home-dev-acme-api" / name).read_text()   # a dry run changes nothing


def test_v10_scan_finds_files_of_named_roots(mem, tmp_path, store_path):
    """test26 V10: the files of a forgotten text imported from a folder
    the user named (not a harness's folder) were hidden in the ledger and
    then looked for in the harnesses' folders only: ``mem scan`` said
    "found nowhere" and ``--scrub-sources`` found 0 files while they held
    the text.  The folders named to imports are walked too
    (``cache/import-roots``), and a hidden file found nowhere is named as
    not checked, never counted clean."""
    name = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"
    named = tmp_path / "exports" / "-home-dev-acme-api"
    named.mkdir(parents=True)
    (named / name).write_text((SAMPLE / name).read_text())
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}      # an empty harness folder: not where the file is
    mem("import", "claude-code", str(tmp_path / "exports"), env=env)
    assert (store_path / "cache" / "import-roots").read_text() == str(tmp_path / "exports") + "\n"
    word = "acme-api"     # in the file's folder, not in the folder named (the test's name has no word of 6+ letters)
    mem("forget", "--match", word, "--yes", env=env)
    assert (store_path / "cache" / "import-roots").read_text() == str(tmp_path / "exports") + "\n"
    assert all(x.startswith("sha256:") for x in (store_path / "cache" / "imported-files").read_text().split())
    r = mem("scan", word, "--no-remotes", env=env, exit_code=1)
    assert "transcript " in r.stdout and name in r.stdout, r.stdout
    r = mem("forget", "--match", word, "--scrub-sources", "--dry-run", env=env)
    assert "would scrub 1 transcript file" in r.stdout, r.stdout
    # the file moved away: not found, and said so (not "found nowhere" alone)
    (named / name).rename(tmp_path / name)
    r = mem("scan", word, "--no-remotes", env=env, exit_code=3)      # partial: not everything was checked
    assert "1 captured transcript file not checked" in r.stderr and "not checked: see above" in r.stdout, \
        (r.stdout, r.stderr)
    r = mem("forget", "--match", word, "--scrub-sources", "--dry-run", env=env)
    assert "warning: 1 captured transcript file not checked" in r.stderr, r.stderr
