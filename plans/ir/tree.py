"""Immutable tree nodes and iterative traversal.

Every expression and every logical operator is a frozen, slotted dataclass built with
`@node`.  At construction a node computes, once, its hash (from its own data and its
children's hashes), a bit mask of the node kinds in its subtree, and whatever derived
facts its class declares in `_derive()` (type, nullability, output...).

Equality is structural but iterative (no recursion through C code, so 10,000-deep
trees compare fine): identity first, then hash, then fields.

Traversals are iterative too.  `transform_up` / `transform_down` return the very
same object when the function changed nothing, so a fixed point is an identity test.
Shared subtrees are rewritten once per traversal (memo by identity).
"""

from __future__ import annotations

import math
from dataclasses import FrozenInstanceError
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, TypeVar

from .records import dataclass_transform, first_init, slotted

if TYPE_CHECKING:
    from typing_extensions import Self

ONE, OPT, MANY, PAIRS = "one", "opt", "many", "pairs"

_next_bit = [0]
KIND_BITS: dict[type, int] = {}


@dataclass_transform(frozen_default=True, eq_default=False)
def node(cls=None, /, *, children: dict[str, str] | None = None,
         extra: dict[str, str] | None = None):
    """Class decorator: a frozen slotted class of fields (like a frozen, slotted
    dataclass without generated equality or repr) with precomputed hash and kind mask.

    Fields are the class's annotations, in order, with their class-level defaults.
    `children` maps field names to ONE (a node), OPT (a node or None), MANY (a tuple of
    nodes) or PAIRS (a tuple of pairs of nodes): the nodes traversals walk.  `extra`
    declares, the same way, fields holding nodes of another tree that are compared and
    hashed structurally but not walked (a plan's expressions, a subquery's plan).
    Other fields are plain data.

    Built on `records` rather than `dataclasses.dataclass`: with ~50 node classes, the
    dataclass machinery was 40% of sparkfold's own import time (the command line's
    cold start); one generated `__init__` per class is all a node needs."""

    def wrap(c: Any) -> Any:
        c = slotted(c)
        spec = tuple((children or {}).items())
        c._child_spec = spec
        c._extra_spec = tuple((extra or {}).items())
        child_names = {n for n, _ in spec} | {n for n, _ in c._extra_spec}
        c._data_names = tuple(n for n in c._field_names if n not in child_names)
        c._eq_names = tuple(n for n in c._data_names if n not in getattr(c, "_not_compared", ()))
        bit = 1 << _next_bit[0]
        _next_bit[0] += 1
        c.bit = bit
        KIND_BITS[c] = bit
        # the generated methods are compiled at a class's first instance: most runs
        # (the command line's start above all) build a few of the ~50 classes
        c.__init__ = first_init
        c._node_init = _first_post_init
        c._rebuild_kids = _first_rebuild_kids
        c._rebuild_extra = _first_rebuild_extra
        if "__post_init__" not in c.__dict__:
            c.__post_init__ = _first_post_init
        return c

    return wrap if cls is None else wrap(cls)


def _generated_rebuild(c: Any, spec: tuple) -> Callable:
    """`(node, new) -> a node of class c`: the node's fields, with the nodes of `spec`'s
    fields (children or extra) taken from `new` in spec order; constructed positionally."""
    lines = ["def rebuild(self, new):", "    i = 0"]
    for name, kind in spec:
        if kind == ONE:
            lines += [f"    v_{name} = new[i]", "    i += 1"]
        elif kind == OPT:
            lines += [f"    if self.{name} is not None:", f"        v_{name} = new[i]", "        i += 1",
                      "    else:", f"        v_{name} = None"]
        elif kind == MANY:
            lines += [f"    n = len(self.{name})", f"    v_{name} = tuple(new[i:i + n])", "    i += n"]
        else:
            lines += [f"    n = 2 * len(self.{name})", f"    v_{name} = tuple(zip(new[i:i + n:2], new[i + 1:i + n:2]))",
                      "    i += n"]
    spec_names = {name for name, _ in spec}
    args = ", ".join(f"v_{n}" if n in spec_names else f"self.{n}" for n in c._field_names)
    lines.append(f"    return _cls({args})")
    scope = {"_cls": c}
    exec("\n".join(lines) + "\n", scope)
    return scope["rebuild"]


def _first_rebuild_kids(self, new):
    c = type(self)
    c._rebuild_kids = _generated_rebuild(c, c._child_spec)
    return c._rebuild_kids(self, new)


def _first_rebuild_extra(self, new):
    c = type(self)
    c._rebuild_extra = _generated_rebuild(c, c._extra_spec)
    return c._rebuild_extra(self, new)


def _first_post_init(self) -> None:
    """A node class's `__post_init__` (and `_node_init`) until its first instance."""
    c = type(self)
    c._node_init = _generated_post_init(c)
    if c.__dict__.get("__post_init__") is _first_post_init:
        c.__post_init__ = c._node_init
    c._node_init(self)


def _generated_post_init(c: Any) -> Callable:
    """`Node.__post_init__` written out for one class: its children and extra nodes
    gathered field by field, its hash and kind mask, then `_derive()`.  The same result
    as the generic method, without its per-node loops over field specs (a node is built
    for every rewrite, so this is on every hot path)."""
    lines = ["def __post_init__(self):"]

    def gather(spec, var):
        parts = []
        for name, kind in spec:
            if kind == ONE:
                parts.append(f"(self.{name},)")
            elif kind == OPT:
                parts.append(f"((self.{name},) if self.{name} is not None else ())")
            elif kind == MANY:
                parts.append(f"tuple(self.{name})")
            else:
                parts.append(f"tuple(x for pair in self.{name} for x in pair)")
        lines.append(f"    {var} = {' + '.join(parts) if parts else '()'}")

    gather(c._child_spec, "kids")
    gather(c._extra_spec, "extra")
    lines.append("    _set(self, 'children', kids)")
    lines.append("    _set(self, '_extra', extra)")
    lines.append("    m = _bit")
    lines.append("    for k in kids:")
    lines.append("        m |= k.mask")
    if c._extra_in_mask and c._extra_spec:
        lines.append("    for k in extra:")
        lines.append("        m |= k.mask")
    # plain values (names, ids, flags) are their own key: no call for them
    data = "".join(f"(v if type(v := self.{n}) in _plain else _key(v)), " for n in c._eq_names)
    lines.append(f"    hs = tuple([k._hash for k in kids] + [k._hash for k in extra])" if c._extra_spec
                 else "    hs = tuple([k._hash for k in kids])")
    lines.append(f"    _set(self, '_hash', hash((_name, ({data}), hs)))")
    lines.append("    _set(self, 'mask', m)")
    lines.append("    self._derive()")
    scope = {"_set": object.__setattr__, "_bit": c.bit, "_name": c.__name__, "_key": data_key,
             "_plain": _PLAIN_TYPES}
    exec("\n".join(lines) + "\n", scope)
    fn = scope["__post_init__"]
    fn.__qualname__ = f"{c.__qualname__}.__post_init__"
    return fn


def mask_of(*classes: Any) -> int:
    m = 0
    for c in classes:
        m |= c.bit
    return m


# Classes of plain data that are their own key (`data_key(v) is v`): the generated
# `__post_init__` hashes them without a call.  Value classes elsewhere that hold no
# float, Decimal or node (the data types) join with `keyed_as_is`.
_PLAIN_TYPES: set[type] = {str, int, bool, type(None)}


def keyed_as_is(*classes: type) -> None:
    """Declare value classes that `data_key` returns unchanged (hashable, equal exactly
    when their fields are, with no float, Decimal or node inside)."""
    _PLAIN_TYPES.update(classes)


def data_key(v: Any):
    """A hashable key for plain data that equates what Spark treats as the same literal:
    NaN with NaN, but keeps -0.0 apart from 0.0 (they print differently)."""
    t = type(v)
    if t in _PLAIN_TYPES:
        return v
    if t is tuple:  # names and qualifiers, most of them: plain all through
        for x in v:
            if type(x) not in _PLAIN_TYPES:
                return tuple(data_key(x) for x in v)
        return v
    if t is not float and t is not Decimal and not isinstance(v, (tuple, float, Node)):
        return v  # data types, enums and other hashable values
    if isinstance(v, float):
        if math.isnan(v):
            return ("nan",)
        return ("f", v, math.copysign(1.0, v))
    if isinstance(v, Decimal):
        return ("d", str(v))
    if isinstance(v, tuple):
        return tuple(data_key(x) for x in v)
    if isinstance(v, Node):
        return ("node", v._hash)
    return v


class Node:
    """Base of expressions and logical plans."""

    __slots__ = ("_hash", "mask", "children", "_extra")
    _hash: int
    mask: int            # the kind bits of the node and its children (`mask_of`)
    children: tuple      # the nodes traversals walk, in field order
    _extra: tuple        # the nodes held in `extra` fields
    _child_spec: ClassVar[tuple] = ()
    _extra_spec: ClassVar[tuple] = ()
    # Whether the kinds inside `extra` nodes count in this node's mask.  A subquery
    # expression's mask leaves its plan out (an expression "contains an aggregate" only
    # outside subqueries); plans count their expressions and subquery plans.
    _extra_in_mask: ClassVar[bool] = True
    _data_names: ClassVar[tuple] = ()
    _eq_names: ClassVar[tuple] = ()      # the data compared and hashed
    _not_compared: ClassVar[tuple] = ()  # data fields left out of equality (display only)
    _field_names: ClassVar[tuple] = ()
    bit: ClassVar[int] = 0
    # generated for each class by `node` (at its first instance)
    _node_init: ClassVar[Callable[[Any], None]]
    _rebuild_kids: ClassVar[Callable[[Any, Any], Any]]
    _rebuild_extra: ClassVar[Callable[[Any, Any], Any]]

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    # -- overridable -------------------------------------------------------
    def _derive(self) -> None:
        """Compute derived facts at construction (set with object.__setattr__)."""

    def _extra_nodes(self) -> tuple:
        """Nodes held in `extra` fields (a plan's expressions, a subquery's plan)."""
        return self._extra

    # -- structure ---------------------------------------------------------
    def with_children(self, new_children) -> Self:
        """A copy with the given children (in `children` order); self if all identical."""
        old = self.children
        if len(old) == len(new_children):
            for a, b in zip(old, new_children):
                if a is not b:
                    break
            else:
                return self
        return self._rebuild_kids(new_children)

    def with_extra(self, new_nodes) -> Self:
        """A copy with the given `extra` nodes (in `_extra_nodes()` order)."""
        old = self._extra
        if len(old) == len(new_nodes):
            for a, b in zip(old, new_nodes):
                if a is not b:
                    break
            else:
                return self
        return self._rebuild_extra(new_nodes)

    def copy(self, **changes) -> Self:
        if not changes:
            return self
        values = {n: getattr(self, n) for n in self._field_names}
        if all(values[k] is v for k, v in changes.items()):
            return self
        values.update(changes)
        return type(self)(**values)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if type(other) is not type(self) or other._hash != self._hash:
            return False
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or a._hash != b._hash:
                return False
            for n in a._eq_names:
                if data_key(getattr(a, n)) != data_key(getattr(b, n)):
                    return False
            ca, cb = a.children, b.children
            if len(ca) != len(cb):
                return False
            stack.extend(zip(ca, cb))
            xa, xb = a._extra_nodes(), b._extra_nodes()
            if len(xa) != len(xb):
                return False
            stack.extend(zip(xa, xb))
        return True

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def walk(self) -> Iterator["Node"]:
        """Pre-order iteration over this subtree (children only, iterative)."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def find(self, cls: type | tuple[type, ...]) -> "Node | None":
        """The first node of this subtree (pre-order) that is an instance of `cls`."""
        # the kinds that are instances: a base class (`Comparison`) has no bit of its own
        if not self.mask & mask_of(*(k for k in KIND_BITS if issubclass(k, cls))):
            return None
        for n in self.walk():
            if isinstance(n, cls):
                return n
        return None

    def __repr__(self) -> str:
        """The node as a constructor-like call (plain data, then the children), built
        without recursion; `plans.ir.printer` writes Catalyst's text for explain."""
        return fold(self, _constructor_text)


def _constructor_text(n: Node, kids: list) -> str:
    data = [repr(getattr(n, name)) for name in n._data_names]
    extra = [repr(getattr(n, name)) for name, _ in n._extra_spec]
    return f"{type(n).__name__}({', '.join(data + kids + extra)})"


# ---------------------------------------------------------------------------
# Iterative rewriting
# ---------------------------------------------------------------------------

N = TypeVar("N", bound=Node)  # a walk returns a tree of the kind it was given


def transform_up(root: N, fn: Callable[[N], N], mask: int = -1,
                 opaque: tuple = (), stable: dict | None = None,
                 rebuild: Callable[[N, list], N] | None = None) -> N:
    """Apply `fn` bottom-up (children first).  Subtrees whose kind mask has no bit in
    `mask` are skipped whole (fn is not called in them), and so are the children of
    nodes of the `opaque` classes.  Returns `root` itself when nothing changed.

    `stable` (id -> node, kept alive) holds subtrees `fn` is known to leave unchanged:
    they are skipped whole, and every subtree this call leaves unchanged is added.  Only
    for an `fn` that is a pure function of the node it is given (a rule's).

    `rebuild(node, new_children)` makes a node over its children's results before `fn`
    sees it (default: `node.with_children(new_children)`)."""
    if not (root.mask & mask):
        return root
    memo: dict[int, Any] = {}
    # The stack holds nodes to visit and, for a node whose children are being visited,
    # the pair (node, number of children): a leaf needs no second frame, and a visit
    # allocates nothing.  This loop runs for every rule on every plan.
    stack: list = [root]
    results: list = []
    pop, push, emit = stack.pop, stack.append, results.append
    while stack:
        n = pop()
        if type(n) is tuple:  # its children are done: rebuild it from their results
            n, count = n
            new_kids = results[-count:]
            del results[-count:]
            out = fn(n.with_children(new_kids) if rebuild is None else rebuild(n, new_kids))
        else:
            key = id(n)
            done = memo.get(key)
            if done is not None:
                emit(done)
                continue
            if not (n.mask & mask) or (stable is not None and stable.get(key) is n):
                emit(n)
                continue
            if opaque and isinstance(n, opaque):
                out = fn(n)
                memo[key] = out
                emit(out)
                continue
            kids = n.children
            if kids:
                push((n, len(kids)))
                stack.extend(reversed(kids))
                continue
            out = fn(n)
        memo[id(n)] = out
        if out is n and stable is not None:
            stable[id(n)] = n
        emit(out)
    return results[0]


def transform_down(root: N, fn: Callable[[N], N], mask: int = -1,
                   opaque: tuple = ()) -> N:
    """Apply `fn` top-down: to a node first, then to the children of its result
    (not below nodes of the `opaque` classes)."""
    memo: dict[int, Any] = {}
    stack: list = [(root, False, None)]
    results: list = []
    while stack:
        n, expanded, original = stack.pop()
        if not expanded:
            key = id(n)
            if key in memo:
                results.append(memo[key])
                continue
            if not (n.mask & mask):
                results.append(n)
                continue
            applied = fn(n)
            if opaque and isinstance(applied, opaque):
                memo[key] = applied
                results.append(applied)
                continue
            kids: tuple[Node, ...] = applied.children
            stack.append((applied, True, n))
            for k in reversed(kids):
                stack.append((k, False, None))
            continue
        kids = n.children
        count = len(kids)
        if count:
            new_kids = results[-count:]
            del results[-count:]
            out = n.with_children(new_kids)
        else:
            out = n
        memo[id(original)] = out
        results.append(out)
    return results[0]


def collect(root: Node, pred: Callable[[Any], bool], mask: int = -1) -> list:
    out = []
    stack = [root]
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen or not (n.mask & mask):
            continue
        seen.add(id(n))
        if pred(n):
            out.append(n)
        stack.extend(reversed(n.children))
    return out


def fold(root: Node, fn: Callable[[Any, list], Any], children: Callable[[Any], tuple] | None = None) -> Any:
    """Bottom-up evaluation without recursion: `fn(node, results_of_children)`.
    `children` chooses what to descend into (default: `node.children`)."""
    get = children or (lambda n: n.children)
    stack: list = [(root, False)]
    results: list = []
    while stack:
        n, expanded = stack.pop()
        if not expanded:
            kids: tuple[Node, ...] = get(n)
            stack.append((n, True))
            for k in reversed(kids):
                stack.append((k, False))
            continue
        count = len(get(n))
        if count:
            args = results[-count:]
            del results[-count:]
        else:
            args = []
        results.append(fn(n, args))
    return results[0]
