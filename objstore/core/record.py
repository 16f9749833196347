"""Value types without ``dataclasses``: the methods a dataclass generates,
written once.

``@dataclass`` builds every class it decorates at import time: it writes the
source of ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and the frozen
``__setattr__``, compiles it with ``exec`` and, with ``slots=True``, creates
the class a second time; ``import dataclasses`` also pulls ``inspect``,
``ast``, ``dis`` and ``tokenize``.  That cost ~0.5 ms per class and ~7 ms for
the module on every new process (docs/benchmarks.md, "Start-up"), which the
commands an agent or a hook runs pay dozens of times over.

A value type here is a plain class with ``__slots__`` and an explicit
``__init__`` (both compile once into the ``.pyc``), based on :class:`Record`
(mutable, unhashable, like ``@dataclass``) or :class:`Frozen` (assignment
raises :class:`FrozenInstanceError`, hashable, like
``@dataclass(frozen=True)``)::

    class Point(Frozen):
        __slots__ = ("x", "y")

        def __init__(self, x: int, y: int = 0) -> None:
            set_fields(self, x, y)

The fields are the class's ``__slots__`` (after its bases' fields), in the
order of the ``__init__`` parameters, which must name them all: the class is
refused at import otherwise.  ``set_fields`` stores its arguments in that
order.  The base gives ``repr`` (``Point(x=1, y=0)``, as a dataclass),
``==`` (same class and equal fields, else ``NotImplemented``), ``hash`` of
the fields for frozen records, :meth:`Record.replace` (what
``dataclasses.replace`` did: a new object through ``__init__``) and pickling
or copying of frozen records.  :func:`fields` names a record's fields.
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter, call


class FrozenInstanceError(AttributeError):
    """Assignment to (or deletion of) a field of a :class:`Frozen` record, as
    ``dataclasses.FrozenInstanceError``."""


def _no_fields(obj) -> tuple:
    return ()


class Record:
    """Base of a mutable value type (see the module doc): ``repr``, ``==``,
    :meth:`replace`; unhashable, like a non-frozen dataclass."""

    __slots__ = ()
    #: the field names, in ``__init__`` order (set for each subclass)
    __record_fields__: tuple[str, ...] = ()
    #: each field's slot setter, same order (bypasses a frozen ``__setattr__``)
    __record_setters__: tuple = ()
    #: obj -> tuple of its field values
    __record_values__ = staticmethod(_no_fields)

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("__slots__", ())
        if isinstance(own, str):
            own = (own,)
        names = cls.__record_fields__ + tuple(n for n in own if n not in ("__weakref__", "__dict__"))
        if not names:
            return
        code = cls.__init__.__code__
        params = code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]
        if params != names:
            raise TypeError(f"{cls.__qualname__}: __init__ parameters {params} must be the fields {names}, "
                            "in that order")
        cls.__record_fields__ = names
        cls.__record_setters__ = tuple(getattr(cls, n).__set__ for n in names)
        if len(names) > 1:
            cls.__record_values__ = staticmethod(attrgetter(*names))
        else:
            get = attrgetter(names[0])
            cls.__record_values__ = staticmethod(lambda obj: (get(obj),))

    def __repr__(self) -> str:
        vals = self.__record_values__(self)
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(self.__record_fields__, vals))
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other) -> bool:
        if other.__class__ is self.__class__:
            return self.__record_values__(self) == other.__record_values__(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def replace(self, **changes):
        """A new record of the same class with ``changes`` (field name ->
        value) applied, built through ``__init__`` so its checks run again
        (``dataclasses.replace``).  Raises TypeError for an unknown name."""
        kw = dict(zip(self.__record_fields__, self.__record_values__(self)))
        kw.update(changes)
        return self.__class__(**kw)


class Frozen(Record):
    """Base of an immutable value type: as :class:`Record`, and assigning or
    deleting an attribute raises :class:`FrozenInstanceError`; hashable by
    its fields (``@dataclass(frozen=True)``)."""

    __slots__ = ()

    def __setattr__(self, name: str, value) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self.__record_values__(self))

    def __getstate__(self) -> tuple:
        return self.__record_values__(self)

    def __setstate__(self, state: tuple) -> None:
        set_fields(self, *state)


def set_fields(obj: Record, *values) -> None:
    """Store ``values`` into ``obj``'s fields, in field order (its
    ``__init__``'s parameter order); works on frozen records.  The slot
    setters are called by ``map`` in C (each returns None, so ``any`` runs
    them all), not by a Python loop: every record a recall decodes comes
    through here (a broad recall: ~550 records, ~78 k bytecodes of the
    loop; docs/benchmarks.md, "Session 43 (branch rec43)")."""
    any(map(call, obj.__record_setters__, repeat(obj), values))


def fields(obj) -> tuple[str, ...]:
    """The field names of a record (or record class), in order."""
    return obj.__record_fields__
