"""Classes of named fields that cost next to nothing to define: sparkfold's records, and
(through `tree.node`) its plan nodes.

`@record` stands for `dataclasses.dataclass` on sparkfold's own classes.  Class bodies are
the same (annotated fields in order, class-level defaults, `dataclasses.field(default=,
default_factory=, compare=, repr=)`), and so are the options used here: `frozen`,
`slots`, `eq` and `repr`.  The generated methods behave as a dataclass's do: `__init__`
takes the fields positionally or by name, equality compares the `compare` fields of two
instances of the same class, a frozen record hashes them and raises
`dataclasses.FrozenInstanceError` on assignment, a mutable one with equality is
unhashable, and the repr is the dataclass's text.  `replace` and `as_dict` stand for
`dataclasses.replace` and (shallow) `asdict`.

Why not dataclasses: Python 3.11 compiles three to six methods from source for each
dataclass when its module loads, about 3 M instructions a class.  With 34 of them on the
command line's path that was 107 M of its 915 M start-up instructions, and the start is
held to 1.5x `import sqlglot`.  Here a class's `__init__`, `__eq__` and `__hash__` are
compiled at their first call, with the text a dataclass compiles (most runs build and
compare a few of the classes), and the repr and immutability are functions shared by all
records, reading the class's field names.

Fields are the class's own annotations (a record does not inherit fields); a field may be
left out of `__init__` (`field(init=False)` with a default), and there are no keyword-only
fields or `InitVar`s.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, FrozenInstanceError
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # type checkers and editors read records and nodes as dataclasses (PEP 681)
    from typing_extensions import dataclass_transform
else:  # nothing to do at run time (and typing has it only from Python 3.11)
    def dataclass_transform(**_):
        return lambda decorator: decorator


@dataclass_transform(field_specifiers=(Field,))
def record(cls=None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True, repr: bool = True):
    """Class decorator: `dataclasses.dataclass(cls, frozen=..., slots=..., eq=..., repr=...)`
    at a fraction of the cost of defining it (see the module's text)."""

    def wrap(c: Any) -> Any:
        if any(getattr(base, "_field_names", ()) for base in c.__mro__[1:]):
            raise TypeError(f"{c.__qualname__}: a record does not inherit fields")
        c = slotted(c) if slots else _laid_out(c)
        own = c.__dict__
        if "__init__" not in own:
            c.__init__ = first_init
        if eq and "__eq__" not in own:
            c.__eq__ = _first_eq
        explicit_hash = own.get("__hash__", MISSING) not in (MISSING, None)
        if eq and not explicit_hash:
            c.__hash__ = _first_hash if frozen else None
        if repr and "__repr__" not in own:
            c.__repr__ = _repr
        if frozen:
            c.__setattr__ = _frozen_setattr
            c.__delattr__ = _frozen_delattr
            if slots:  # pickling and copying set the slots through __setstate__
                c.__getstate__ = _getstate
                c.__setstate__ = _setstate
        return c

    return wrap if cls is None else wrap(cls)


def replace(obj: Any, /, **changes) -> Any:
    """A record like `obj` with the given fields changed (`dataclasses.replace`)."""
    cls = type(obj)
    left_out = _LEFT_OUT.get(cls)
    if left_out is None:  # (per class, once: the analyzer replaces a field of its context often)
        left_out = _LEFT_OUT[cls] = frozenset(obj._field_names) - frozenset(obj._init_names)
    if left_out and left_out & changes.keys():
        raise ValueError(f"fields {sorted(left_out & changes.keys())} are not set through __init__")
    values = {n: getattr(obj, n) for n in obj._init_names}
    values.update(changes)
    return cls(**values)


_LEFT_OUT: dict[type, frozenset[str]] = {}  # a record class -> its fields left out of __init__


def as_dict(obj: Any) -> dict[str, Any]:
    """A record's fields by name, their values as they are (`dataclasses.asdict`, shallow)."""
    return {n: getattr(obj, n) for n in obj._field_names}


# -- layout ---------------------------------------------------------------------------

def _declared(c: type) -> tuple[tuple[str, ...], dict, dict, set, set, set]:
    """A class's fields: their names in order, plain defaults, default factories, and the
    names left out of equality, of the repr and of `__init__`'s parameters."""
    names = tuple(n for n, t in c.__dict__.get("__annotations__", {}).items() if "ClassVar" not in str(t))
    defaults, factories, uncompared, unshown, uninit = {}, {}, set(), set(), set()
    for n in names:
        v = c.__dict__.get(n, MISSING)
        if "InitVar" in str(c.__annotations__[n]) or isinstance(v, Field) and v.kw_only is True:
            raise TypeError(f"{c.__qualname__}.{n}: records have no InitVar or keyword-only fields")
        if isinstance(v, Field):
            if not v.init:
                if v.default is MISSING and v.default_factory is MISSING:
                    raise TypeError(f"{c.__qualname__}.{n}: a field left out of __init__ needs a default")
                uninit.add(n)
            if not v.compare:
                uncompared.add(n)
            if not v.repr:
                unshown.add(n)
            if v.default_factory is not MISSING:
                factories[n] = v.default_factory
            v = v.default
        if v is not MISSING:
            defaults[n] = v
        elif n not in factories and any(m in defaults or m in factories for m in names[:names.index(n)]
                                        if m not in uninit):
            raise TypeError(f"{c.__qualname__}: field {n!r} without a default follows one with a default")
    return names, defaults, factories, uncompared, unshown, uninit


def _record_layout(c: Any, names, defaults, factories, uncompared, unshown, uninit) -> None:
    c._field_names = names
    c._defaults = defaults
    c._factories = factories
    c._init_names = tuple(n for n in names if n not in uninit)
    c._compared = tuple(n for n in names if n not in uncompared)
    c._shown = tuple(n for n in names if n not in unshown)
    setattr(c, "__match_args__", c._init_names)  # (type checkers hold it read-only)


def _laid_out(c: type) -> type:
    """`c` with its layout recorded; class attributes hold plain defaults, as a
    dataclass's do."""
    layout = _declared(c)
    names, defaults = layout[0], layout[1]
    for n in names:
        if isinstance(c.__dict__.get(n), Field):
            if n in defaults:
                setattr(c, n, defaults[n])
            else:
                delattr(c, n)
    _record_layout(c, *layout)
    return c


def slotted(c: type) -> Any:
    """`c` rebuilt with a slot per field, its layout recorded."""
    layout = _declared(c)
    names = layout[0]
    body = {k: v for k, v in c.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")}
    body["__slots__"] = names
    new: Any = type(c)(c.__name__, c.__bases__, body)
    new.__qualname__ = c.__qualname__
    _record_layout(new, *layout)
    return new


# -- methods compiled at their first call, one class at a time ----------------------------

_FACTORY = object()  # a field left to its default factory


def _at_first_call(name: str, generate: Callable[[type], Callable]) -> Callable:
    """A method that, called on an instance, compiles the real one for the instance's
    class (`generate(class)`), puts it in its place and calls it."""

    def first(self, *args, **kwargs):
        method = generate(type(self))
        setattr(type(self), name, method)
        return method(self, *args, **kwargs)

    first.__name__ = name
    return first


def _compiled(c: type, name: str, source: str, scope: dict) -> Callable:
    exec(source, scope)
    method = scope[name]
    method.__qualname__ = f"{c.__qualname__}.{name}"
    return method


def generated_init(c: Any) -> Callable:
    """An `__init__` that sets the fields (positional or by keyword, defaults from the
    class body, default factories called) and then calls `__post_init__`, if any."""
    names, defaults, factories, params = c._field_names, c._defaults, c._factories, c._init_names
    params = ", ".join(f"{n}=_d_{n}" if n in defaults else f"{n}=_FACTORY" if n in factories else n
                       for n in params)

    def value(n: str) -> str:
        if n not in c._init_names:  # a field left out of the parameters: its default
            return f"_f_{n}()" if n in factories else f"_d_{n}"
        return f"_f_{n}() if {n} is _FACTORY else {n}" if n in factories else n

    # a class that allows assignment is assigned to (the faster instruction)
    assign = "self.{0} = {1}" if c.__setattr__ is object.__setattr__ else "_set(self, {0!r}, {1})"
    sets = "".join("    " + assign.format(n, value(n)) + "\n" for n in names)
    post = "    self.__post_init__()\n" if hasattr(c, "__post_init__") else ""
    source = f"def __init__(self, {params}):\n{sets}{post}    return None\n"
    return _compiled(c, "__init__", source, {
        "_set": object.__setattr__, "_FACTORY": _FACTORY,
        **{f"_d_{n}": v for n, v in defaults.items()}, **{f"_f_{n}": f for n, f in factories.items()}})


def _fields_tuple(obj: str, names: tuple[str, ...]) -> str:
    return "(" + "".join(f"{obj}.{n}, " for n in names) + ")"


def _generated_eq(c: Any) -> Callable:
    """A dataclass's `__eq__`: the compared fields of two instances of one class, as tuples."""
    source = (f"def __eq__(self, other):\n"
              f"    if other.__class__ is self.__class__:\n"
              f"        return {_fields_tuple('self', c._compared)} == {_fields_tuple('other', c._compared)}\n"
              f"    return NotImplemented\n")
    return _compiled(c, "__eq__", source, {})


def _generated_hash(c: Any) -> Callable:
    """A frozen dataclass's `__hash__`: the hash of its compared fields as a tuple."""
    source = f"def __hash__(self):\n    return hash({_fields_tuple('self', c._compared)})\n"
    return _compiled(c, "__hash__", source, {})


first_init = _at_first_call("__init__", generated_init)
_first_eq = _at_first_call("__eq__", _generated_eq)
_first_hash = _at_first_call("__hash__", _generated_hash)


# -- the methods all records share -----------------------------------------------------

def _repr(self) -> str:
    shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._shown)
    return f"{type(self).__qualname__}({shown})"


def _frozen_setattr(self, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self) -> list:
    return [getattr(self, n) for n in self._field_names]


def _setstate(self, state: list) -> None:
    for n, v in zip(self._field_names, state):
        object.__setattr__(self, n, v)
