"""objstore/index is split by concern with one-way imports: the order below,
no cycle, no private name imported from another module, a docstring on
every public function, class and method."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
INDEX = REPO / "objstore" / "index"
#: lowest first: a module may import only modules before it
ORDER = ["errors", "readonly", "simpletext", "folds", "analysis", "docids", "schema", "query", "procmem", "genfiles", "countcache",
         "genmanifest", "generations", "genwriter", "genbuild", "snippets", "taildeletes", "purge", "segmerge", "gluedcheck", "heldwords",
         "lookups", "reading", "stream", "searchindex"]


def _objstore_imports(path: Path) -> list[ast.ImportFrom]:
    tree = ast.parse(path.read_text())
    return [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
            and n.module.startswith("objstore")]


def test_index_modules_import_only_downwards():
    assert sorted(p.stem for p in INDEX.glob("*.py") if p.stem != "__init__") == sorted(ORDER)
    for rank, name in enumerate(ORDER):
        for node in _objstore_imports(INDEX / f"{name}.py"):
            if node.module.startswith("objstore.index."):
                dep = node.module.split(".")[2]
                assert dep in ORDER[:rank], f"{name} imports {dep}: not below it (or a cycle)"
            else:
                assert node.module.startswith("objstore.core."), f"{name} imports {node.module}: above the index"


def test_no_private_name_crosses_an_index_module():
    """Neither do the index modules import private names, nor does anyone
    import a private name of the index."""
    for f in (REPO / "objstore").rglob("*.py"):
        for node in _objstore_imports(f):
            if f.parent == INDEX or node.module.startswith("objstore.index"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{f.relative_to(REPO)} imports {private} from {node.module}"


def test_public_index_api_has_docstrings():
    missing = []
    for f in INDEX.glob("*.py"):
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_") \
                    and not ast.get_docstring(node):
                missing.append(f"{f.name}:{node.lineno} {node.name}")
    assert missing == []


def test_importing_the_index_package_is_light():
    code = ("import sys, objstore.index, objstore.index.errors; a = 'tantivy' in sys.modules\n"
            "from objstore.index import SearchIndex, tokenize; print(a, 'tantivy' in sys.modules, tokenize('Café'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.split() == ["False", "True", "['cafe']"]
