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
    code = "import sys, objstore.core.store, objstore.memory.facts, objstore.memory.sessions, objstore.memory.appender, objstore.memory.forget, objstore.core.gc; " \
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


# --------------------------------------------------------------------------- the layers
# objstore's subpackages in dependency order (docs/design.md, "Layers"): a module may
# import only from its own subpackage or from one of lower rank; capture, retrieval
# and vault share a rank and do not import each other; integrations and every later
# top subpackage (porcelain, ...) sit above them.
RANKS = {"core": 0, "index": 1, "memory": 2, "capture": 3, "retrieval": 3, "vault": 3, "integrations": 4}
TOP_RANK = 5
#: modules that may be imported inside a function, to defer a heavy import (tantivy,
#: cryptography, the compiled redaction rules; crash recovery, needed only after a crash);
#: the line must say so in a comment
HEAVY = ("objstore.memory.recovery", "objstore.index.analysis", "objstore.index.schema", "objstore.index.query",
         "objstore.index.generations", "objstore.index.snippets", "objstore.index.searchindex",
         "objstore.index", "objstore.core.redact", "objstore.vault.age",
         # the redaction rules again (what a stored text still holds: mem forget --credentials only)
         "objstore.core.redact.leftovers",
         # the fetched-secret table (red34b), through the redaction package: a reader's tool call or result only
         "objstore.core.redact.fetched",
         # off the start-up paths: readers never write a pack; the prompt hook never renders memory files
         "objstore.core.packwriter", "objstore.memory.memfiles",
         # the writer's block and dictionary encoding, split from packwriter (session 30): writers only
         "objstore.core.packencode",
         # forget's chunk scrub of a version-8 pack (session 32; it imports packwriter): a forget only
         "objstore.core.packscrub",
         # off the hooks' start-up: only 'mem config NAME VALUE' edits the file; the settings table is read
         # only where a setting is used (decay, derive.auto)
         "objstore.core.tomledit", "objstore.core.settings",
         # off every start-up: a pack is salvaged only on a miss while a .pack has lost its .idx
         "objstore.core.salvage",
         # off the hooks' transcript sync start-up (session 36): a retraction prompt the sync adds takes back
         "objstore.capture.takeback",
         # off the prompt hook's and the proxy's capture (session 38): only a turn that names a password or PIN
         # rewrites the session's earlier turns quoting it (forget's rewrite)
         "objstore.memory.sessionearlier",
         # off the session-start hook's start-up (session 29): derive.auto imports derive.run; only a derive
         # proposal that would be written asks whether the person's later fact updated its turn (test29 P8)
         "objstore.retrieval.injecttime", "objstore.retrieval.timeline",
         # off the prompt hook's start-up (session 32, lat32): the time rules judge a fact or passage the gate
         # cleared, a later turn is read for one shown; the decay clock is read or touched for a shown fact
         "objstore.retrieval.laterturns", "objstore.retrieval.timeitems", "objstore.memory.decay",
         # the time rules on the memory files' lines, for a block that shows a file (session 37, test36 T15)
         "objstore.retrieval.filestale",
         # off a recall whose items state no value (a needle's turns; session 41, rec41b): the rules that compare
         # two items' values, for relations when an item states one
         "objstore.retrieval.restated", "objstore.retrieval.factchange",
         # off `mem get`'s and `mem log`'s start-up (session 39): fsck's set-back check runs only for a ref its
         # reflog's last line disagrees with (served.set_back_warning)
         "objstore.core.fsck",
         # the facts module's lost-value notes, read with it (a key whose value is lost)
         "objstore.memory.lost",
         # off the prompt hook's start-up (session 32, lat32): its transcript scan withholds nothing but
         # a bash-mode prompt's secret output (objstore.capture.promptscan.user_parts)
         "objstore.capture.withhold", "objstore.memory.sessions", "objstore.memory.provenance",
         # off `mem get`'s start-up (session 29): a pattern is built (rxcache loads re and its enum) on first use
         "objstore.core.rxcache",
         # off the readers' start-up (session 27): the JSON-escaped form of a match text (test27 V29) is
         # made only for a needle with a space, quote or backslash; jsonspan loads re and dataclasses
         "objstore.core.jsonspan",
         # off the readers' start-up: get and recall never park a write for review, nor rebuild the
         # index from the objects (documents imports the sessions module)
         "objstore.memory.proposals", "objstore.memory.documents",
         # off the import's parse worker (session 17): it forecasts turns (the sessions module) but
         # never reads a fact; facts imports the store, its refs, packs and tombstones
         "objstore.memory.facts",
         # off the prompt hook's start-up (session 18): only a rendered context block (session start,
         # 'mem context') reads the queued conflicts; the queue imports the proposals
         "objstore.memory.queue",
         # off the readers' start-up (session 20): a read writes no reflog, audit line, journal entry or
         # unfinished-forget note and takes no lock; a chain read loose first loads no pack code
         # (Store's properties and walk_chain); facts' write helpers (caller, scope, tombstones, the
         # index's errors) are imported where it writes
         "objstore.core.reflog", "objstore.core.audit", "objstore.core.journal", "objstore.core.unfinished",
         "objstore.core.lock", "objstore.core.pack", "objstore.core.packformat", "objstore.index.errors",
         "objstore.memory.caller", "objstore.memory.scope", "objstore.memory.tombstones",
         # a lower-trust fact write reads the forgotten keys' seal rules (test37 T1)
         "objstore.memory.sealrulefile",
         # off the readers' start-up (session 22): a search opens the index without the writer's
         # modules (a batch, a new generation, a bulk stream)
         "objstore.index.genwriter", "objstore.index.genbuild", "objstore.index.stream",
         # only when an opening finds a stopped forget or seal noted (session 24, test24 T1)
         "objstore.memory.sealstop",
         # off the import's catch-up (session 24): with nothing new it starts no parse worker (pickle,
         # subprocess, threads) and a Claude Code import reads no Codex file (hashlib)
         "objstore.capture.parseworker", "objstore.capture.codex",
         # only a version-7 pack's block needs zstd (session 26): its module's import costs ~1 ms
         "objstore.core.packzstd",
         # off the readers' start-up (session 40, rec40): only a multi-token word's glued check and a purge's
         # tail deletes use them
         "objstore.index.gluedcheck", "objstore.index.taildeletes",
         # off a recall's start-up (session 41, rec41): the stored-time bound, for a turn stamped ahead of the
         # clock or later than a fact it supersedes
         "objstore.retrieval.storedat")


def _module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _objstore_modules(root: Path = REPO) -> dict[str, Path]:
    return {_module_name(p, root): p for p in sorted((root / "objstore").rglob("*.py"))}


def _resolve(mod: str, name: str | None, modules: dict[str, Path]) -> str:
    """``from mod import name``: the module it reaches (a submodule if ``name`` is one)."""
    if name and f"{mod}.{name}" in modules:
        return f"{mod}.{name}"
    return mod


def _edges(root: Path = REPO) -> list[tuple[str, str, int, bool, str]]:
    """``(importer, imported, line, inside a function, source line)`` for every import
    between objstore modules (relative imports resolved)."""
    modules = _objstore_modules(root)
    out = []
    for me, path in modules.items():
        src = path.read_text()
        lines = src.splitlines()
        tree = ast.parse(src)
        in_func = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for n in ast.walk(f)}
        pkg = me if path.name == "__init__.py" else me.rpartition(".")[0]
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                targets = [_resolve(base, a.name, modules) for a in node.names]
            for t in targets:
                if t == "objstore" or t.startswith("objstore."):
                    out.append((me, t, node.lineno, id(node) in in_func, lines[node.lineno - 1]))
    return out


def _rank(mod: str) -> tuple[int, str]:
    parts = mod.split(".")
    if len(parts) < 2:
        return (TOP_RANK + 1, "")  # objstore itself: the public API, above everything
    return (RANKS.get(parts[1], TOP_RANK), parts[1])


def layering_problems(root: Path = REPO) -> list[str]:
    """Every violation of the layer rules in the objstore tree at ``root``."""
    bad = []
    edges = _edges(root)
    for me, dep, line, in_func, text in edges:
        if me == "objstore":
            continue  # the public API table reaches every layer
        (r_me, pkg_me), (r_dep, pkg_dep) = _rank(me), _rank(dep)
        if r_dep > r_me or (r_dep == r_me and pkg_dep != pkg_me):
            bad.append(f"upward import: {me}:{line} imports {dep}")
        if in_func and not (dep in HEAVY and "defer" in text.partition("#")[2]):
            bad.append(f"function-level import that defers no heavy module (or says not why): "
                       f"{me}:{line} {text.strip()}")
    graph: dict[str, set[str]] = {}
    for me, dep, _line, _f, _t in edges:
        if me != dep and me != "objstore":
            graph.setdefault(me, set()).add(dep)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                bad.append("import cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return bad


#: (file, stdlib module) whose private names that one file may use, and why: rxcache keeps the
#: program ``re._compiler.compile`` hands ``_sre.compile`` (no public API gives it), keyed by the
#: interpreter's bytecode tag and ``_sre.MAGIC``, and falls back to ``re.compile`` when they differ
STDLIB_INTERNALS = {("objstore/core/rxcache.py", "re")}


def private_import_problems(root: Path = REPO) -> list[str]:
    """``from x import _name`` and ``module._name`` across objstore modules and cmds."""
    bad = []
    files = sorted((root / "objstore").rglob("*.py")) + sorted((root / "cmds").rglob("*.py"))
    for path in files:
        tree = ast.parse(path.read_text())
        modules_bound = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(("objstore", "cmds"))):
                for a in node.names:
                    submodule = node.level and (path.parent / f"{a.name}.py").exists()  # e.g. cmds/_common.py
                    if a.name.startswith("_") and not a.name.startswith("__") and not submodule:
                        bad.append(f"{path.relative_to(root)}:{node.lineno} imports private {a.name}")
                    modules_bound.add(a.asname or a.name)
            elif isinstance(node, ast.Import):
                modules_bound |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("objstore")}
        defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                    ast.ClassDef))}
        defined |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
        defined |= {t.id for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        defined |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
                continue
            base = ast.unparse(node.value)
            if base in ("self", "cls", "os", "sys"):
                continue
            if (str(path.relative_to(root)), base.split(".")[0]) in STDLIB_INTERNALS:
                continue
            if (root / base.replace(".", "/") / f"{node.attr}.py").exists():
                continue  # a package's private module (cmds._out)
            if base.split(".")[0] in modules_bound or node.attr not in defined:
                bad.append(f"{path.relative_to(root)}:{node.lineno} uses {base}.{node.attr} of another module")
    return bad


def store_path_problems(root: Path = REPO) -> list[str]:
    """cmds joining paths under the store root (``root / "x"``, ``home_path(ctx) / "x"``,
    ``store.root / "x"``): where things live in a store is objstore's business."""
    import re
    bad = []
    for path in sorted((root / "cmds").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                left = ast.unparse(node.left)
                if re.search(r"\broot\b|home_path\(|\bstore\b", left):
                    bad.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    return bad


def test_layers_only_import_down_without_cycles():
    assert layering_problems() == []


def test_no_private_names_cross_modules():
    assert private_import_problems() == []


def test_cmds_never_builds_paths_under_the_store_root():
    assert store_path_problems() == []


def test_refs_move_only_through_update_ref():
    """One commit path for a ref and its reflog: outside objstore/core nothing
    calls ``set_if_equals`` or ``reflog.append``."""
    bad = []
    for path in sorted((REPO / "objstore").rglob("*.py")) + sorted((REPO / "cmds").rglob("*.py")):
        if path.parent.name == "core":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                call = ast.unparse(node.func)
                if node.func.attr == "set_if_equals" or call.endswith("reflog.append"):
                    bad.append(f"{path.relative_to(REPO)}:{node.lineno} {call}")
    assert bad == []


def test_the_checks_catch_an_upward_import_and_a_cycle(tmp_path):
    """The rules above fail on a copy of objstore with one upward import
    (core importing memory) and one cycle (two memory modules importing each other)."""
    import shutil
    shutil.copytree(REPO / "objstore", tmp_path / "objstore", ignore=shutil.ignore_patterns("__pycache__"))
    assert layering_problems(tmp_path) == []
    with open(tmp_path / "objstore" / "core" / "gc.py", "a") as f:
        f.write("\nfrom objstore.memory.facts import walk\n")
    with open(tmp_path / "objstore" / "memory" / "tombstones.py", "a") as f:
        f.write("\nfrom objstore.memory.facts import walk\n")
    bad = layering_problems(tmp_path)
    assert any(b.startswith("upward import: objstore.core.gc:") for b in bad), bad
    assert any(b.startswith("import cycle:") and "objstore.memory.tombstones" in b for b in bad), bad
