"""The ``mem`` console script.

A new process pays only for what it runs.  When the store has a resident
helper (``mem helper``), ``get``, ``recall``, ``search``, ``remember``,
``context`` and the UserPromptSubmit hook are run there
(:mod:`cmds._helperclient`), which prints the same bytes; without one, or
when it does not answer, ``mem hook claude-code`` goes to
:mod:`cmds._hookrun` and the commands an agent runs (and ``--help``) to
:mod:`cmds.lean`, both without click; every other command line, and
whatever the lean path does not fully understand, goes to the click CLI
(:func:`cmds.main.entry`).
"""

import atexit
import gc
import os
import sys

#: the cyclic collector's thresholds while a lean or hook command runs: such a
#: process loads 100-160 modules (their functions and classes are what the
#: collector walks, again and again as the count grows) and ends after one
#: answer; with the default (700, 10, 10) its collections cost ~1.5-4 ms of a
#: recall's or a hook's CPU (docs/benchmarks.md, "Session 18 (branch `lat18`)").
#: Still bounded: a young generation of 20,000 objects.  The click CLI (long
#: commands: import, gc, forget, the helper) gets the default back.
LEAN_GC_THRESHOLD = (20_000, 20, 100)

_EXIT: list = []   # [exit status, pid] once a lean or hook command is done


def _exit(code: int) -> None:
    """Leave with ``code`` once a command is done: ``sys.exit``, so that
    non-daemon threads are joined and every atexit callback runs as usual,
    after which :func:`_skip_teardown` (the first callback registered, so
    the last to run) ends the process before the interpreter's teardown."""
    _EXIT[:] = [code if isinstance(code, int) else 1, os.getpid()]
    sys.exit(code)


def _skip_teardown() -> None:
    """Flush stdout and stderr and ``os._exit`` with the status given to
    :func:`_exit`; nothing when it was not called (or in a forked child), or
    when a flush fails (the ordinary exit then reports it).  The teardown
    frees every module and object one by one, and freeing the open index
    generations joins tantivy's reader threads (three per generation, 54 on
    a recall): ~7-10 ms of CPU and up to ~100 ms of wall time on a busy
    machine (docs/benchmarks.md, "Start-up")."""
    if not _EXIT or _EXIT[1] != os.getpid():
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the ordinary exit reports it
        return
    os._exit(_EXIT[0])


def private_umask() -> None:
    """Add ``077`` to the process umask, whatever the caller's: everything
    mem creates (the store's objects, packs, refs, index generations written
    by tantivy, cursors, session state, logs; an export) is then its
    owner's only, 0600 files and 0700 folders, on every path (the CLI, the
    hooks, the resident helper, which applies the umask the client sends),
    so ``mem doctor``'s permission check holds on a store only mem wrote.
    The one place: tantivy creates its files itself, so a mode given to
    each ``open``/``mkdir`` cannot cover them."""
    os.umask(os.umask(0o077) | 0o077)


#: what ``pathlib`` imports and calls only in ``glob``, ``match``, ``as_uri`` and its Windows paths, by CPython version:
#: 3.11's imports ``re`` (with ``enum``), ``fnmatch``, ``urllib.parse`` (with ``ipaddress``) and ``ntpath`` and calls
#: none as it loads; 3.12's calls ``fnmatch.translate`` as it loads, so only ``urllib.parse`` can wait;
#: 3.13's pathlib imports ``urllib.parse`` where ``as_uri`` runs, itself: nothing to do there (a stand-in for a
#: module pathlib uses as it loads would stay bound in pathlib and fnmatch, each call through it)
PATHLIB_DEFERRED_BY_VERSION = {(3, 11): ("re", "fnmatch", "urllib.parse", "ntpath"), (3, 12): ("urllib.parse",)}
#: this interpreter's: empty on 3.13 and later, where :func:`pathlib_alone` does nothing
PATHLIB_DEFERRED = PATHLIB_DEFERRED_BY_VERSION.get(sys.version_info[:2], ())


#: the functions pathlib binds by name as it loads (``from urllib.parse import quote_from_bytes``)
PATHLIB_FROM_IMPORTS = {("urllib.parse", "quote_from_bytes")}


def _deferred_module(name: str):
    """A stand-in module for ``name``: an attribute read imports the real
    module (taking the stand-in out of ``sys.modules`` if still there) and
    answers from it, except a function of :data:`PATHLIB_FROM_IMPORTS` read
    while pathlib loads, which is answered with a function that does so
    when first called.  Raises what the real module's import or ``getattr``
    raises."""
    stand_in = type(sys)(name)

    def __getattr__(attr: str):   # PEP 562: read for names the stand-in lacks, i.e. all of them
        if attr.startswith("__"):   # the import system's own questions (``__path__``: a package?)
            raise AttributeError(attr)
        if sys.modules.get(name) is stand_in:
            if (name, attr) in PATHLIB_FROM_IMPORTS:
                def deferred(*args, **kwargs):
                    """The real ``name.attr``, imported on first use."""
                    __import__(name)
                    return getattr(sys.modules[name], attr)(*args, **kwargs)
                return deferred
            del sys.modules[name]
        __import__(name)
        return getattr(sys.modules[name], attr)
    stand_in.__getattr__ = __getattr__
    return stand_in


def pathlib_alone() -> None:
    """Import ``pathlib`` without what it needs only in a few methods
    (:data:`PATHLIB_DEFERRED`, by CPython version): ``urllib.parse`` (and
    ``ipaddress``) for ``Path.as_uri`` (3.11, 3.12), ``re`` (and ``enum``)
    and ``fnmatch`` for ``glob`` and ``match`` (3.11: 3.12 calls fnmatch as
    pathlib loads); nothing on 3.13 and later, whose pathlib defers
    ``urllib.parse`` itself; on 3.11 also ``ntpath``, which only its
    Windows paths use (its import tries five names of the Windows-only
    ``nt`` module, each a failed search of ``sys.path``: ~2.3 M
    instructions, docs/benchmarks.md, "Session 40 (branch `rec40`)").  A
    store's reads call none of them, and these imports were ~1.5-3 ms
    (urllib, docs/benchmarks.md, "Session 17 (branch `lat17`)") and ~3 ms
    (re with enum, "Session 21 (branch `lat21`)") of every new process
    that opens a store.  Each is given a
    stand-in (:func:`_deferred_module`) while pathlib loads, which leaves
    ``sys.modules`` before pathlib's import returns: pathlib keeps the
    stand-in, whose first use imports the real module, and any later
    ``import re`` loads the real one.  Nothing when pathlib is loaded
    already (an editable install's finder loads it at start-up); a module
    loaded already is not stood in for."""
    if "pathlib" in sys.modules or not PATHLIB_DEFERRED:
        return
    stand_ins = {name: _deferred_module(name) for name in PATHLIB_DEFERRED if name not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        import pathlib  # noqa: F401
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]


class _DatetimeFromC:
    """The finder (first on ``sys.meta_path``) of :func:`datetime_from_c`:
    it answers ``import datetime`` with the C module ``_datetime`` and
    nothing else, so a process that never dates anything (``get``,
    ``remember``) loads neither."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        """A spec for ``datetime`` (loaded by this class), else None."""
        if name != "datetime":
            return None
        try:
            import _datetime  # noqa: F401
        except ImportError:   # an interpreter without it: datetime.py, as anywhere
            return None
        return type(sys.__spec__)("datetime", _DatetimeFromC)   # importlib's ModuleSpec, loaded at start-up

    @staticmethod
    def create_module(spec):
        """The C module itself (imported by :meth:`find_spec`)."""
        return sys.modules["_datetime"]

    @staticmethod
    def exec_module(module) -> None:
        """Nothing: the C module is complete."""


def datetime_from_c() -> None:
    """Make ``datetime`` the interpreter's C implementation, ``_datetime``,
    without running ``datetime.py``: that file defines the whole
    pure-Python implementation and then replaces it by ``from _datetime
    import *`` (CPython 3.11-3.13), and tantivy's extension imports
    ``datetime`` as it loads (its date fields), so every process that
    searches paid ~1.5-2 ms of CPU for classes it never uses
    (docs/benchmarks.md, "Session 18 (branch `lat18`)").  The C module has
    every public name of ``datetime`` (``date``, ``datetime``, ``time``,
    ``timedelta``, ``timezone``, ``tzinfo``, ``UTC``, ``MINYEAR``,
    ``MAXYEAR``, ``datetime_CAPI``) and its types are named ``datetime.*``
    (pickle, repr).  Loaded when first imported (:class:`_DatetimeFromC`).
    Only on the lean and hook paths (a process that ends after one answer:
    :func:`entry` takes it back before click runs); nothing when
    ``datetime`` is loaded already or the interpreter has no ``_datetime``
    (then ``datetime.py`` is the module)."""
    if "datetime" not in sys.modules:
        sys.meta_path.insert(0, _DatetimeFromC)


class _JsonKeptPatterns:
    """The finder (on ``sys.meta_path``) of :func:`json_without_re`: it
    answers the first ``import json`` made while ``re`` is not loaded with
    the spec the other finders give, its loader wrapped
    (:class:`_KeptPatternsLoader`); any other import, or a later one, it
    leaves to them."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        """The ``json`` package's spec, its loader wrapped; else None."""
        if name != "json" or "re" in sys.modules:
            return None
        for finder in sys.meta_path:
            find = None if finder is _JsonKeptPatterns else getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if hasattr(spec.loader, "exec_module"):
                    spec.loader = _KeptPatternsLoader(spec.loader)
                return spec
        return None


class _KeptPatternsLoader:
    """``json``'s own loader, run with a stand-in ``re`` (:func:`json_without_re`)."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        """What the package's own loader creates (None: a new module)."""
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        """Run the package (and the submodules it imports) with the stand-in
        in ``sys.modules`` as ``re``; then the finder is off ``sys.meta_path``
        and the module's loader is its own again."""
        if _JsonKeptPatterns in sys.meta_path:
            sys.meta_path.remove(_JsonKeptPatterns)
        from objstore import compile_pattern
        stand_in = _deferred_module("re")
        stand_in.compile = compile_pattern
        stand_in.VERBOSE, stand_in.MULTILINE, stand_in.DOTALL = 64, 8, 16   # re's flags: the same ints
        sys.modules.setdefault("re", stand_in)
        try:
            self.loader.exec_module(module)
        finally:
            if sys.modules.get("re") is stand_in:
                del sys.modules["re"]
            module.__loader__ = module.__spec__.loader = self.loader


def json_without_re() -> None:
    """Import the stdlib ``json`` (first imported when a recall writes its
    answer or a hook reads its event) without ``re``: its modules use ``re``
    as they load only to compile six fixed patterns (``json.decoder``'s
    ``STRINGCHUNK`` and ``WHITESPACE``, ``json.scanner``'s ``NUMBER_RE``,
    ``json.encoder``'s ``ESCAPE``, ``ESCAPE_ASCII`` and ``HAS_UTF8``) with
    ``re.VERBOSE | re.MULTILINE | re.DOTALL``, never at a call; and ``re``'s
    import (with ``enum``) was ~20 M instructions (~2.5 ms of CPU) of every
    recall and prompt hook (docs/benchmarks.md, "Session 39 (branch
    `lat39`)").  While ``json`` loads, ``re`` is a stand-in
    (:func:`_deferred_module`) whose ``compile`` is
    :func:`objstore.core.rxcache.compile_pattern` (the same pattern
    objects, from the kept programs) and whose flags are the same ints
    as ``re``'s; any other name read
    from it imports the real ``re`` (a pattern the file misses: rxcache's
    own fallback), and any later ``import re`` loads the real one.  Only
    on the lean and hook paths (:func:`entry` takes the finder back before
    click runs); nothing when ``json`` or ``re`` is loaded already."""
    if "json" not in sys.modules and "re" not in sys.modules and _JsonKeptPatterns not in sys.meta_path:
        sys.meta_path.insert(0, _JsonKeptPatterns)


def _via_helper(argv: list[str]) -> None:
    """Exit with the helper's answer when it runs this command line; return
    to run it here otherwise."""
    from . import _helperclient as hc
    name, home = hc.command_of(argv)
    if name is None or hc.disabled() or "_MEM_COMPLETE" in os.environ:
        return
    root = hc.store_root(home)
    try:
        os.stat(hc.socket_path(root))
    except OSError:
        return
    if name == "hook":
        _hook_via_helper(argv, root, home)
        return
    stdin = None
    if name == "remember" and "-" in argv:   # remember KEY - reads the value on stdin (as it would here)
        try:
            if os.isatty(0):
                return
            stdin = sys.stdin.buffer.read(hc.MAX_STDIN + 1)   # more: far over the value limit, refused here
        except (OSError, ValueError, AttributeError):
            return
    got = hc.forward(argv, root, stdin) if stdin is None or len(stdin) <= hc.MAX_STDIN else None
    if got is None:
        if stdin is not None:   # already read: the command here reads it again from memory
            import io
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding=sys.stdin.encoding, errors=sys.stdin.errors)
        return
    hc.write_out(got[1], got[2])
    os._exit(got[0] & 0xFF)


def _hook_via_helper(argv: list[str], root: str, home) -> None:
    """The hook: read the event (:mod:`cmds._hookstdin`: no ``json``, no
    :mod:`cmds._hookrun`), send one that names UserPromptSubmit to the
    helper, which parses it and answers that event only (any other, or one
    that does not parse: "run it yourself"), and run the others (or any
    that the helper does not answer) here."""
    from . import _helperclient as hc
    from ._hookstdin import HookInputError, read_stdin_bytes
    env = {**os.environ, "MEM_HOME": home} if home else None
    try:
        buf = read_stdin_bytes(sys.stdin.fileno())
    except HookInputError as e:
        err = e

        def fail():
            raise err
        _exit(_run_hook_here(env, fail))
    if b"UserPromptSubmit" in buf:   # a cheap sieve: the helper checks the event's name
        from . import _hookclock
        _hookclock.arm_early("UserPromptSubmit")   # its own hard stop, not the default's
        got = hc.forward(argv, root, buf, hook=True)
        if got is not None:
            hc.write_out(got[1], got[2])
            os._exit(got[0] & 0xFF)
    _exit(_run_hook_here(env, None, buf))


def _run_hook_here(env, read, buf: bytes | None = None) -> int:
    """``mem hook claude-code`` in this process (``os._exit`` follows),
    the event read from ``read()``, else parsed from ``buf``."""
    from . import _hookclock, _hookrun
    _hookrun.OWN_PROCESS = True   # run here, os._exit follows
    return _hookrun.run_claude_code(env=env, read=read or (lambda: _hookrun.parse_event(buf)),
                                    started=_hookclock.armed(), create=env is None)


def entry() -> None:
    """``mem``: the resident helper, the hook fast path, the lean path, else
    the click CLI."""
    argv = sys.argv[1:]
    if argv[-2:] == ["hook", "claude-code"]:
        # first of all: its budget counts from the process's start, and under load the imports
        # below take a while (cmds._hookclock)
        from . import _hookclock
        _hookclock.arm_early()
    # before the helper's client and the stand-ins below: with the default (700, 10, 10) their
    # imports and a new process's first objects cost four young collections (~0.25 ms of CPU)
    default_gc = gc.get_threshold()
    gc.set_threshold(*LEAN_GC_THRESHOLD)
    atexit.register(_skip_teardown)
    private_umask()     # first: a hook the helper does not answer runs here (the helper adds 077 too)
    _via_helper(argv)
    pathlib_alone()   # the helper did not answer: this process opens the store
    datetime_from_c()
    json_without_re()
    from . import _ownpyc   # here: a process the helper answers loads nothing more
    _ownpyc.install()
    if argv == ["hook", "claude-code"]:
        from . import _hookclock, _hookrun
        _hookrun.OWN_PROCESS = True   # os._exit follows: the open index is left to it
        _exit(_hookrun.run_claude_code(started=_hookclock.armed()))
    if len(argv) == 4 and argv[0] == "--home" and argv[2:] == ["hook", "claude-code"]:  # a custom store
        from . import _hookclock, _hookrun
        if not argv[1]:   # --home '': not ~/.mem (test41 T30; spaces alone: the hook's own check)
            from ._helperclient import blank_home
            sys.stderr.write(f"mem: {blank_home(argv[1])}: nothing captured, no memory served\n")
            _exit(0)
        _hookrun.OWN_PROCESS = True
        _exit(_hookrun.run_claude_code(env={**os.environ, "MEM_HOME": argv[1]}, started=_hookclock.armed(),
                                       create=False))
    from cmds import lean
    lean.OWN_PROCESS = True   # os._exit follows: a remember's index commit may outlive the answer
    code = lean.main(argv)
    if code is not None:
        _exit(code)
    lean.OWN_PROCESS = False  # click runs it (the same bodies): as in any other program's process
    gc.set_threshold(*default_gc)
    if _DatetimeFromC in sys.meta_path:   # click's commands import datetime.py as any program does
        sys.meta_path.remove(_DatetimeFromC)
        if "datetime" in sys.modules and sys.modules["datetime"] is sys.modules.get("_datetime"):
            del sys.modules["datetime"]
    if _JsonKeptPatterns in sys.meta_path:   # click imports re anyway
        sys.meta_path.remove(_JsonKeptPatterns)
    _ownpyc.uninstall()
    from cmds.main import entry as cli_entry
    cli_entry()
