"""The lean and hook paths' finder of this project's own modules.

A new ``mem recall`` imports ~100 modules of ``objstore`` and ``cmds``,
and importlib's general path costs ~300 k instructions a module besides
the module's own code (a package of 100 one-line modules: 66.8 M against
36.8 M for ``python -c "import pk"``): ``PathFinder`` and ``FileFinder``
look the name up among the directory's files (a stat of the directory,
the candidate suffixes of extensions, sources and bytecode, a stat of
the file found), then ``SourceFileLoader.get_code`` finds the bytecode's
path, stats the source again, opens and reads the bytecode through the
``io`` layers and checks its header in Python.  This finder's way is ~67 k
instructions a module cheaper (``mem get``: 34 modules, −2.28 M; a recall
loads ~76 this way; docs/benchmarks.md, "Session 42 (branch rec42)").

:class:`OwnBytecode`, first on ``sys.meta_path`` while a lean or hook
command runs (:func:`install`; :func:`cmds.entry.entry` takes it back
before click runs), answers a submodule of ``objstore`` or ``cmds`` that
is a plain ``NAME.py`` in its package's one folder (no folder, and no
extension module, of that name beside it: those keep importlib's order)
and whose ``__pycache__/NAME.<cache tag>.pyc`` is the one CPython's own
loader would run: the interpreter's magic number, a timestamp-checked
file (flags 0) whose source mtime (seconds, 32 bits) and size (32 bits)
are the source's now.  The spec is what ``FileFinder`` makes (origin,
``cached``, ``has_location``), its loader a :class:`_Loader`, which is a
``SourceFileLoader`` for every other purpose (source, resources,
filename) and whose ``get_code`` unmarshals the bytes read.  Anything
else (a package, a missing, stale, hash-checked or unreadable bytecode
file, ``sys.pycache_prefix`` or ``-O`` set) is left to importlib, which
compiles and writes the bytecode as usual, so the same code runs either
way; nothing is written here.
"""

from __future__ import annotations

import marshal
import os
import sys
from importlib._bootstrap_external import MAGIC_NUMBER   # (importlib.util would load contextlib)
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec, SourceFileLoader

_TOPS = ("objstore.", "cmds.")
_TAG = f".{sys.implementation.cache_tag}.pyc"
_listings: dict[str, tuple[frozenset[str], bool]] = {}   # a package folder -> (its entries, any extension)


class _Loader(SourceFileLoader):
    """``SourceFileLoader`` whose first ``get_code`` is the bytecode
    :class:`OwnBytecode` read and checked."""

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self._data = data

    def get_code(self, fullname):
        """The module's code object: from the bytes read, once; else as
        ``SourceFileLoader`` gets it."""
        data, self._data = self._data, None
        if data is not None and fullname == self.name:
            try:
                code = marshal.loads(memoryview(data)[16:])
            except (ValueError, EOFError, TypeError):
                code = None
            if type(code) is _CODE:
                return code
        return super().get_code(fullname)   # importlib's own reading of the same file, and its errors


def _plain(folder: str, leaf: str) -> bool:
    """Whether ``leaf`` is a plain module of ``folder``: a ``leaf.py``
    with no entry ``leaf`` (a package's or a namespace's folder, which
    importlib looks at first) and no extension module ``leaf.<suffix>``
    (importlib's first loader) beside it; False when the folder cannot be
    listed.  The folder is listed once a process; its names are looked up
    in a set, not filtered in Python (a recall's six folders: ~10 k
    bytecodes less; docs/benchmarks.md, "Session 43 (branch rec43)")."""
    got = _listings.get(folder)
    if got is None:
        try:
            names = os.listdir(folder)
        except OSError:
            names = []
        blob = "/".join(names) + "/"   # (no name holds a "/": a suffix followed by one ends a name)
        got = _listings[folder] = (frozenset(names), any(s + "/" in blob for s in EXTENSION_SUFFIXES))
    names, extensions = got
    return f"{leaf}.py" in names and leaf not in names \
        and not (extensions and any(leaf + s in names for s in EXTENSION_SUFFIXES))


class OwnBytecode:
    """The finder (module docstring)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        """A spec for ``objstore.*``/``cmds.*`` module ``name`` whose
        bytecode is current; None for anything else."""
        if not name.startswith(_TOPS) or path is None or len(path) != 1:
            return None
        folder, leaf = path[0], name.rpartition(".")[2]
        if not _plain(folder, leaf):
            return None
        source = f"{folder}/{leaf}.py"
        cached = f"{folder}/__pycache__/{leaf}{_TAG}"
        try:
            st = os.stat(source)
            fd = os.open(cached, os.O_RDONLY)
            try:
                size = os.fstat(fd).st_size
                data = os.read(fd, size)
            finally:
                os.close(fd)
        except OSError:
            return None
        if len(data) != size:
            return None
        if len(data) < 16 or data[:4] != MAGIC_NUMBER or data[4:8] != b"\0\0\0\0" \
                or int.from_bytes(data[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF \
                or int.from_bytes(data[12:16], "little") != st.st_size & 0xFFFFFFFF:
            return None
        spec = ModuleSpec(name, _Loader(name, source, data), origin=source)
        spec.has_location = True
        spec.cached = cached
        return spec


def install() -> None:
    """Put :class:`OwnBytecode` first on ``sys.meta_path`` (once); nothing
    when bytecode goes elsewhere (``sys.pycache_prefix``) or is optimized
    (``-O``)."""
    if sys.pycache_prefix is None and not sys.flags.optimize and OwnBytecode not in sys.meta_path:
        sys.meta_path.insert(0, OwnBytecode)


def uninstall() -> None:
    """Take :class:`OwnBytecode` off ``sys.meta_path``."""
    if OwnBytecode in sys.meta_path:
        sys.meta_path.remove(OwnBytecode)


_CODE = type(install.__code__)   # types.CodeType
