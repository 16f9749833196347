"""A forget hides a transcript path naming the forgotten text in
``cache/imported-files`` and drops the read ledger; the next import wrote
the path back in the clear in ``cache/read-ledger-claude-code.json``
(lane fix16, defect 2).  The read ledger now keys such a path as
``imported-files`` does (``sha256:`` of the path), and still knows the
file as read (an unchanged file is not read again)."""

from __future__ import annotations

import json
from pathlib import Path

from objstore.core.fileid import ledger_path, load_ledger

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects" / "-home-dev-acme-api"
NAME = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"


def _cache_naming(store_path: Path, word: str) -> list[str]:
    """The files under cache/ that hold ``word``: the read ledger's inflated JSON, any other's bytes."""
    return [str(f) for f in (store_path / "cache").rglob("*") if f.is_file()
            and word.encode() in (json.dumps(load_ledger(f)).encode() if f.name.startswith("read-ledger-")
                                  else f.read_bytes())]


def test_a_reimport_does_not_write_a_forgotten_path_back_into_the_read_ledger(mem, tmp_path, store_path):
    folder = tmp_path / "claude" / "projects" / "-home-dev-zebrafinch-orchard-app"
    folder.mkdir(parents=True)
    (folder / NAME).write_text((SAMPLE / NAME).read_text().replace("/home/dev/acme-api",
                                                                    "/home/dev/zebrafinch-orchard/app"))
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    mem("import", "claude-code", env=env)
    assert _cache_naming(store_path, "zebrafinch")            # the ledgers name the path before the forget
    mem("forget", "--match", "zebrafinch-orchard", "--yes", env=env)
    assert _cache_naming(store_path, "zebrafinch") == []
    for args in (("import", "claude-code"), ("import", "claude-code", "--reread")):
        mem(*args, env=env)
        assert _cache_naming(store_path, "zebrafinch") == [], args
    ledger = load_ledger(ledger_path(store_path / "cache", "claude-code"))
    assert [k[:7] for k in ledger["files"]] == ["sha256:"], ledger
    r = mem("import", "claude-code", "--json", env=env).json
    assert r["files_unchanged"] == 1, r                         # still known as read, under its hidden key
    assert _cache_naming(store_path, "zebrafinch") == []
    # scan and --scrub-sources --dry-run still find the transcript, and agree
    # (and the project folder, whose name holds the text: test28 Y3)
    lines = [ln for ln in mem("scan", "zebrafinch-orchard", "--no-remotes", env=env, exit_code=1).stdout.splitlines()
             if ln.startswith("transcript ")]
    assert len(lines) == 2 and sum("its name holds it" in ln for ln in lines) == 1, lines
    dry = mem("forget", "--match", "zebrafinch-orchard", "--scrub-sources", "--dry-run", env=env)
    assert "would scrub 1 transcript file" in dry.stdout, dry.stdout
