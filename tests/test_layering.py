"""The three layers stay apart: objstore imports no CLI or UI library and never
prints; mem --help imports neither tantivy, cryptography nor prompt_toolkit."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_objstore_imports_no_cli_and_never_prints():
    files = list((REPO / "objstore").rglob("*.py"))
    assert files
    for f in files:
        imps = _imports(f)
        assert not imps & {"click", "prompt_toolkit", "cmds"}, f
        tree = ast.parse(f.read_text())
        calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        assert "print" not in calls, f
        assert "environ" not in f.read_text(), f"{f} reads the environment"


def test_objstore_import_does_not_pull_click():
    code = "import sys, objstore.core.store, objstore.memory.facts, objstore.memory.sessions, objstore.memory.forget, objstore.core.gc; " \
           "print(sorted(m for m in ('click','prompt_toolkit') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.strip() == "[]"


def test_help_imports_no_heavy_module():
    code = ("import sys; sys.argv=['mem','--help']\n"
            "from cmds.main import main\n"
            "import io, contextlib\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(['--help'])\n"
            "print(sorted(m for m in ('tantivy','cryptography','prompt_toolkit') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.strip() == "[]"


def test_command_summaries_match_their_help():
    import importlib

    from cmds.main import COMMANDS
    for name, (module, summary) in COMMANDS.items():
        cmd = importlib.import_module(module).command
        assert cmd.name == name
        assert cmd.help.strip().splitlines()[0] == summary, name
        assert "Exit status" in cmd.help and "Examples" in cmd.help, name


def test_cmds_import_only_the_public_api():
    """cmds (commands, the hook runner, the shell) use `objstore`'s public API, never its modules."""
    bad = []
    for f in (REPO / "cmds").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            mods = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            elif isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            bad += [f"{f.relative_to(REPO)}:{node.lineno} {m}" for m in mods if m.startswith("objstore.")]
    assert bad == []


def test_public_api_names_all_resolve_without_heavy_imports():
    code = ("import sys, objstore\n"
            "heavy = sorted(m for m in ('tantivy','cryptography','prompt_toolkit','click') if m in sys.modules)\n"
            "missing = [n for n in objstore.__all__ if getattr(objstore, n, None) is None]\n"
            "print(heavy, missing)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.strip() == "[] []"
