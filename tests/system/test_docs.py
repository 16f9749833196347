"""Generated docs and completions are current; every command is documented."""

from __future__ import annotations

import re
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
    rows = re.findall(r"^\| `([\w.]+\.py)` \|", (REPO / "bench" / "README.md").read_text(), flags=re.M)
    scripts = sorted(p.name for p in (REPO / "bench").glob("*.py"))
    assert sorted(rows) == scripts


#: a repository path in prose or code: ``objstore/…``, ``cmds/…``, ``bench/…``, ``tests/…``, ``hooks/…``,
#: not inside another path (``/tmp/mem-bench/base``, ``project/bench/one``, ``$PROTO/bench/…``) and not
#: a path at another revision in git's ``REV:path`` form (``07a6d608^:objstore/core/redact.py``)
_DOC_PATH_RE = re.compile(r"(?<![\w./~$:^-])((?:objstore|cmds|bench|tests|hooks)/[\w./*<>-]*[\w*>])")


def _doc_paths() -> list[tuple[str, int, str]]:
    """``(file, line number, path)`` of every repository path README.md,
    docs/*.md and bench/README.md name; a ``<placeholder>`` or ``*`` in a
    path is a glob (``hooks/shell/mem.<shell>``, ``tests/core/test_pack*.py``)."""
    out = []
    for f in [REPO / "README.md", REPO / "bench" / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            out += [(f.relative_to(REPO).as_posix(), n, m.group(1)) for m in _DOC_PATH_RE.finditer(line)]
    return out


def test_every_path_the_docs_name_exists():
    """test27 V24: the docs named modules that had moved into subpackages
    (``objstore/vault.py``, ``objstore/journal.py``, …)."""
    found = _doc_paths()
    names = {p for _f, _n, p in found}
    assert {"objstore/core/journal.py", "hooks/shell/mem.<shell>", "bench/README.md"} <= names   # the scan reads them
    missing = []
    for f, n, p in found:
        pattern = re.sub(r"<[^>]*>", "*", p)
        ok = any(REPO.glob(pattern)) if "*" in pattern else (REPO / pattern).exists()
        if not ok:
            missing.append(f"{f}:{n}: {p}")
    assert missing == []
