"""objstore.core.record: value types that behave as the dataclasses they replaced."""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import pickle
import pkgutil
import textwrap

import pytest

import objstore
from objstore.core.objects import Fact, Turn
from objstore.core.record import Frozen, FrozenInstanceError, Record, fields, set_fields


class Point(Frozen):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int = 0) -> None:
        set_fields(self, x, y)


class Bag(Record):
    __slots__ = ("name", "items")

    def __init__(self, name: str, items: list | None = None) -> None:
        set_fields(self, name, [] if items is None else items)


def test_frozen_record_behaves_as_a_frozen_dataclass():
    p = Point(1)
    assert repr(p) == "Point(x=1, y=0)"
    assert p == Point(1, 0) and p != Point(1, 2) and p != (1, 0)
    assert Point.__eq__(p, (1, 0)) is NotImplemented
    assert hash(p) == hash(Point(x=1, y=0)) and len({p, Point(1)}) == 1
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
        p.x = 2
    with pytest.raises(AttributeError):
        del p.y
    with pytest.raises(AttributeError):
        p.z = 1  # no __dict__
    assert p.replace(y=5) == Point(1, 5) and p == Point(1)
    with pytest.raises(TypeError):
        p.replace(z=1)
    assert pickle.loads(pickle.dumps(p)) == p and copy.copy(p) == p and copy.deepcopy(p) == p
    assert fields(p) == fields(Point) == ("x", "y")


def test_mutable_record_behaves_as_a_dataclass():
    a, b = Bag("a"), Bag("a")
    assert a.items is not b.items  # a fresh default each time (default_factory)
    a.items.append(1)
    a.name = "b"
    assert a == Bag("b", [1]) and a != b
    assert repr(a) == "Bag(name='b', items=[1])"
    with pytest.raises(TypeError):
        hash(a)


def test_a_class_whose_init_does_not_name_its_fields_in_order_is_refused():
    with pytest.raises(TypeError, match="must be the fields"):
        class Bad(Frozen):
            __slots__ = ("x", "y")

            def __init__(self, y, x):
                set_fields(self, x, y)


def test_objects_keep_their_dataclass_behaviour():
    f = Fact(key="user/a", kind="user", body="x", version=1, parent=None, valid_from=1, recorded_at=1)
    assert f.sources == () and f.edges == () and f.namespace == ""
    assert f == Fact("user/a", "user", "x", 1, None, 1, 1) and hash(f) == hash(f.replace())
    with pytest.raises(FrozenInstanceError):
        f.body = "y"
    with pytest.raises(objstore.InvalidInput):
        f.replace(kind="nope")  # __init__'s checks run again on replace
    assert f.replace(edges=[("relates_to", "user/b"), ("relates_to", "user/b")]).edges == (("relates_to", "user/b"),)
    t = Turn("s", 0, "user", "hi", 0, "cc", "/", "p", "src", None)
    assert repr(t).startswith("Turn(session='s', seq=0, role='user', text='hi',")


def _records():
    for info in pkgutil.walk_packages(objstore.__path__, "objstore."):
        mod = importlib.import_module(info.name)
        for obj in vars(mod).values():
            if inspect.isclass(obj) and issubclass(obj, Record) and obj.__module__ == info.name \
                    and obj not in (Record, Frozen):
                yield obj


def test_every_record_stores_each_parameter_in_its_own_field():
    """set_fields is positional: each argument of the call in ``__init__``
    must be (or be computed from) the parameter of its field.  A mutable
    record on a recall's hot path may store its fields as attributes
    instead (``self.a, self.b = a, b``: ~15x cheaper a field than the slot
    setters; docs/benchmarks.md, "Session 43 (branch rec43)"): then each
    field is stored once, from its own parameter."""
    seen = 0
    for cls in _records():
        if "__init__" not in cls.__dict__:
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls.__init__)))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "set_fields"]
        if not calls and not issubclass(cls, Frozen):
            stores = []
            for n in ast.walk(tree):
                if isinstance(n, ast.Assign) and len(n.targets) == 1:
                    tg = n.targets[0]
                    pairs = zip(tg.elts, n.value.elts) if isinstance(tg, ast.Tuple) and isinstance(n.value, ast.Tuple) \
                        else [(tg, n.value)]
                    stores += [(t.attr, v) for t, v in pairs if isinstance(t, ast.Attribute)
                               and isinstance(t.value, ast.Name) and t.value.id == "self"]
            assert sorted(a for a, _v in stores) == sorted(fields(cls)), cls
            for name, v in stores:
                assert name in {n.id for n in ast.walk(v) if isinstance(n, ast.Name)}, (cls, name)
            seen += 1
            continue
        assert len(calls) == 1, cls
        args = calls[0].args[1:]
        assert len(args) == len(fields(cls)), cls
        for name, arg in zip(fields(cls), args):
            assert name in {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}, (cls, name)
        seen += 1
    assert seen >= 50
