"""cbor2's codec, loaded without the ``cbor2`` package's ``__init__``.

That ``__init__`` imports ``typing`` for six type aliases (``from typing
import Any, TypeAlias``), ~2-3 ms of every new process's start-up that
nothing of ours uses (docs/benchmarks.md, "Session 16 (branch `lat16`)").
The codec itself is the C extension ``cbor2._cbor2``, which re-exports
everything the package does (``dumps``, ``loads``, ``CBORDecodeError``, …)
and imports no Python module of its own for the values our objects hold.

:data:`cbor2` is that extension module, registered in ``sys.modules`` under
its own name, so that a later ``import cbor2`` (a tool, a test) runs the
package's ``__init__`` over this same module: one codec, one set of error
classes, in a process.  Where the extension cannot be found this way (a
pure-Python cbor2, an unusual install) :data:`cbor2` is the package,
imported as usual: the same functions, with ``typing``.  Measured with
cbor2 6.3 (its extension defines its own types); an older extension that
imports the package's Python modules while it loads brings the package in
then, and :data:`cbor2` is whatever ``sys.modules`` holds for the
extension afterwards: correct, without the saving.

Every module of ours that encodes or decodes CBOR takes it from here
(``from objstore.core.cborext import cbor2``).
"""

import sys

_NAME = "cbor2._cbor2"


def _load():
    mod = sys.modules.get(_NAME)
    if mod is not None:
        return mod
    try:
        from importlib.machinery import ExtensionFileLoader, PathFinder
        pkg = PathFinder.find_spec("cbor2")   # finds the package without running its __init__
        spec = PathFinder.find_spec(_NAME, list(pkg.submodule_search_locations)) if pkg else None
        if spec is None or not isinstance(spec.loader, ExtensionFileLoader):
            raise ImportError(_NAME)
        mod = spec.loader.create_module(spec)
        spec.loader.exec_module(mod)
        mod.__spec__, mod.__loader__ = spec, spec.loader
        mod.dumps, mod.loads, mod.CBORDecodeError  # noqa: B018 - what we use must be there
    except Exception:  # noqa: BLE001 - any surprise: the package, as usual
        import cbor2 as pkg_module
        return pkg_module
    sys.modules.setdefault(_NAME, mod)
    return sys.modules[_NAME]


#: the codec: ``dumps(obj, canonical=...)``, ``loads(bytes)``, ``CBORDecodeError``
cbor2 = _load()
