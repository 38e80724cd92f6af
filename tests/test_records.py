"""`plans.ir.records.record` stands for `dataclasses.dataclass`: each class here is built
twice from the same body, once by each, and must behave the same (the standard library
is the oracle)."""

import copy
import dataclasses
import math
import pickle
import subprocess
import sys
from typing import ClassVar  # noqa: F401  (dataclasses resolve the string "ClassVar[str]" here)

import pytest

from sparkfold.plans.ir.records import as_dict, record, replace

OPTIONS = [{}, {"frozen": True}, {"frozen": True, "slots": True}, {"eq": False}, {"repr": False},
           {"frozen": True, "slots": True, "repr": False}]


def both(body: dict, annotations: dict, **options):
    """The class `Point` made from `body` by dataclasses and by record."""
    made = []
    for decorate in (dataclasses.dataclass, record):
        ns = {"__annotations__": dict(annotations), "__qualname__": "Point", "__module__": __name__, **body}
        made.append(decorate(**options)(type("Point", (), ns)))
    return made


def _point(**options):
    return both({"y": 0, "tags": dataclasses.field(default_factory=list),
                 "note": dataclasses.field(default="", compare=False, repr=False)},
                {"x": "int", "y": "int", "tags": "list", "note": "str", "kind": "ClassVar[str]"}, **options)


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # the same kind of error both ways
        return ("raised", type(e))


def _hash(obj):
    """What `hash(obj)` gives; an identity hash differs between two objects, so it is named, not compared."""
    if type(obj).__hash__ is object.__hash__:
        return "identity"
    return _outcome(lambda: hash(obj))


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_construction_defaults_and_factories_match_dataclasses(options):
    for cls in _point(**options):
        a, b = cls(1), cls(x=2, y=3, tags=["t"], note="n")
        assert (a.x, a.y, a.tags, a.note) == (1, 0, [], "")
        assert (b.x, b.y, b.tags, b.note) == (2, 3, ["t"], "n")
        assert a.tags is not cls(1).tags  # a fresh list each time
    dc, rec = _point(**options)
    for args, kwargs in [((), {}), ((1, 2, [], "", 5), {}), ((1,), {"z": 3}), ((1,), {"x": 1})]:
        assert _outcome(lambda: dc(*args, **kwargs)) == _outcome(lambda: rec(*args, **kwargs))
    assert rec.__match_args__ == dc.__match_args__ == ("x", "y", "tags", "note")


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_repr_equality_and_hash_match_dataclasses(options):
    dc, rec = _point(**options)
    nan = math.nan
    cases = [((1, 2, ["a"], "n"), (1, 2, ["a"], "other note")), ((1, 2), (1, 3)), ((nan,), (nan,)),
             ((float("nan"),), (float("nan"),)), ((1, -0.0), (1, 0.0))]
    for left, right in cases:
        if options.get("repr", True):
            assert repr(rec(*left)) == repr(dc(*left))
        else:
            assert type(rec(*left)).__repr__ is type(dc(*left)).__repr__ is object.__repr__
        assert (rec(*left) == rec(*right)) == (dc(*left) == dc(*right))
        assert (rec(*left) != rec(*right)) == (dc(*left) != dc(*right))
        assert _hash(rec(*left)) == _hash(dc(*left))
    dc, rec = both({}, {"x": "int", "y": "float"}, **options)  # hashable fields only
    for x, y in [(1, 2.0), (1, math.nan)]:
        assert _hash(rec(x, y)) == _hash(dc(x, y))
    assert (rec(1, 2.0) == dc(1, 2.0)) is False  # instances of different classes never compare equal
    assert (rec(1, 2.0) == (1, 2.0)) is False


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_assignment_pickling_and_copies_match_dataclasses(options):
    global Point
    for cls in _point(**options):
        p = cls(1, 2, ["a"])
        expected = _outcome(lambda: setattr(_point(**options)[0](1), "x", 5))
        assert _outcome(lambda: setattr(p, "x", 5))[0] == expected[0]
        if options.get("frozen"):
            with pytest.raises(dataclasses.FrozenInstanceError):
                del p.y
        assert hasattr(p, "__dict__") is not bool(options.get("slots"))
        Point = cls  # pickle finds the class by its module and name
        try:
            for again in (pickle.loads(pickle.dumps(p)), copy.copy(p), copy.deepcopy(p)):
                assert (again.x, again.y, again.tags) == (p.x, p.y, p.tags)
        finally:
            del Point


def test_replace_and_as_dict_match_dataclasses():
    for options in ({}, {"frozen": True}, {"frozen": True, "slots": True}):
        dc, rec = _point(**options)
        d, r = dc(1, 2, ["a"], "n"), rec(1, 2, ["a"], "n")
        assert as_dict(r) == dataclasses.asdict(d)
        assert as_dict(replace(r, y=7)) == dataclasses.asdict(dataclasses.replace(d, y=7))
        assert _outcome(lambda: replace(r, z=1)) == _outcome(lambda: dataclasses.replace(d, z=1))


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"frozen": True, "slots": True}], ids=str)
def test_fields_left_out_of_init_match_dataclasses(options):
    dc, rec = both({"cache": dataclasses.field(default=None, init=False, repr=False, compare=False),
                    "seen": dataclasses.field(default_factory=list, init=False), "y": 1},
                   {"x": "int", "cache": "dict", "seen": "list", "y": "int"}, **options)
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((1,), {"cache": {}}), ((1, 2, 3), {})]:
        assert _outcome(lambda: repr(rec(*args, **kwargs))) == _outcome(lambda: repr(dc(*args, **kwargs)))
    d, r = dc(1, 2), rec(1, 2)
    assert (r.cache, r.seen, r.y) == (d.cache, d.seen, d.y) == (None, [], 2) and r.seen is not rec(1).seen
    assert as_dict(replace(r, y=5)) == dataclasses.asdict(dataclasses.replace(d, y=5))
    assert _outcome(lambda: replace(r, seen=[1])) == _outcome(lambda: dataclasses.replace(d, seen=[1]))
    assert rec.__match_args__ == dc.__match_args__ == ("x", "y")


def test_declarations_dataclasses_reject_are_rejected():
    with pytest.raises(TypeError):
        both({"x": 0}, {"x": "int", "y": "int"})
    with pytest.raises(TypeError):
        record(type("Bad", (), {"__annotations__": {"x": "int", "y": "int"}, "x": 0}))
    for unsupported in ({"__annotations__": {"x": "int"}, "x": dataclasses.field(kw_only=True)},
                        {"__annotations__": {"x": "InitVar[int]"}},
                        {"__annotations__": {"x": "int"}, "x": dataclasses.field(init=False)}):
        with pytest.raises(TypeError):  # refused, never ignored
            record(type("Bad", (), unsupported))
    base = record(type("Base", (), {"__annotations__": {"x": "int"}}))
    with pytest.raises(TypeError, match="does not inherit"):  # a dataclass would: not here, say so
        record(type("Sub", (base,), {"__annotations__": {"y": "int"}}))


def test_post_init_own_methods_and_patterns():
    seen = []

    for cls in both({"__post_init__": lambda self: seen.append(self.x),
                     "__eq__": lambda self, other: True, "__repr__": lambda self: "mine"},
                    {"x": "int"}, frozen=True):
        seen.clear()
        p = cls(4)
        assert seen == [4] and p == object() and repr(p) == "mine"
        match p:
            case cls(x):
                assert x == 4
            case _:
                pytest.fail("positional pattern did not match")


def test_sparkfold_defines_its_classes_as_records():
    """The command line's start: no class of sparkfold is a dataclass (each one compiles
    its methods when its module loads, about 3 M instructions a class)."""
    code = """
import sys, inspect
import sparkfold.optimizer.cli, sparkfold.optimizer.verify, sparkfold.optimizer.dbt, sparkfold.optimizer.explain
import sparkfold.plans.pyspark.frames, sparkfold.optimizer.compare, sparkfold.optimizer.rewrite
found = sorted(f"{m}.{n}" for m, mod in list(sys.modules.items()) if m.startswith("sparkfold")
               for n, c in vars(mod).items() if inspect.isclass(c) and "__dataclass_fields__" in vars(c))
print("DATACLASSES", found)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "DATACLASSES []" in proc.stdout, proc.stdout + proc.stderr


def test_find_matches_subclasses_of_a_base_class_and_tuples():
    # `find` skips subtrees by their kind mask; a base class like Comparison has no kind
    # bit of its own, so its mask is that of the node classes below it
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir import types as T

    a = E.Attribute("a", T.INT, True, 1)
    cmp = E.EqualTo(a, E.lit(1))
    tree = E.Not(E.And(E.IsNotNull(a), cmp))
    assert tree.find(E.Comparison) is cmp
    assert tree.find(E.EqualTo) is cmp
    assert tree.find((E.LessThan, E.IsNotNull)) == E.IsNotNull(a)
    assert tree.find(E.LessThan) is None
    assert E.IsNotNull(a).find(E.Comparison) is None
