"""Generated docs and completions are current; every command is documented."""

from __future__ import annotations

from pathlib import Path

from cmds.docgen import REPO, cli_markdown, completion_files
from cmds.main import COMMANDS


def test_cli_reference_is_current():
    assert (REPO / "docs" / "cli.md").read_text(encoding="utf-8") == cli_markdown(), \
        "docs/cli.md is stale: run python -m cmds.docgen"


def test_completions_are_current():
    for fname, text in completion_files().items():
        assert (REPO / "completions" / fname).read_text(encoding="utf-8") == text, \
            f"completions/{fname} is stale: run python -m cmds.docgen"


def test_bash_completion_completes_commands(mem):
    import os
    r = mem(env={"_MEM_COMPLETE": "bash_complete", "COMP_WORDS": "mem re", "COMP_CWORD": "1"})
    assert "remember" in r.stdout and "reindex" in r.stdout


def test_every_command_in_docs():
    cli = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"## mem {name}\n" in cli


def test_exit_codes_documented():
    table = (REPO / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    from objstore.core import errors
    for cls in vars(errors).values():
        if isinstance(cls, type) and issubclass(cls, errors.MemError):
            assert f"| {cls.exit_code} |" in table, cls
    for code in (0, 1, 2, 130):
        assert f"| {code} |" in table


def test_every_bench_script_has_one_row():
    """bench/README.md's table names each script under bench/ exactly once (merges had doubled rows and new
    scripts had come without one)."""
    import re
    rows = re.findall(r"^\| `([\w.]+\.py)` \|", (REPO / "bench" / "README.md").read_text(), flags=re.M)
    scripts = sorted(p.name for p in (REPO / "bench").glob("*.py"))
    assert sorted(rows) == scripts
