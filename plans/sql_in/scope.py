"""Name resolution scopes: which columns a FROM clause makes visible, and how.

A scope has entries (one per FROM item: its qualifier and columns, for `t.c` and
`t.*`), a star list (what `*` expands to, in order; it also answers unqualified names,
so a USING join's key resolves to the merged key), and a parent scope for correlated
subqueries.  Names are case-insensitive.
"""

from __future__ import annotations

from dataclasses import field
from typing import cast

from ..ir import expressions as E
from ..ir.errors import AmbiguousReferenceError, UnknownColumnError
from ..ir.records import record
from ..ir.tree import transform_up


@record
class Entry:
    qualifier: tuple[str, ...]  # lower-case name parts, e.g. ("spark_catalog", "db", "t") or ("x",)
    columns: list[E.Expr]  # Attributes (or an aliased expression for a USING key)
    display: str = ""
    # columns a name reads when no column has it, which `*` does not expand to (a file
    # source's `_metadata`: from_clause.hidden_metadata)
    hidden: list[E.Expr] = field(default_factory=list)
    _by_name: dict | None = field(default=None, init=False, repr=False, compare=False)

    def matches(self, parts: tuple[str, ...]) -> bool:
        n = len(parts)
        return n <= len(self.qualifier) and self.qualifier[-n:] == parts

    def named(self, name: str) -> list[E.Expr]:
        """The columns called `name` (lower-case), in order."""
        if self._by_name is None:
            self._by_name = _index(self.columns)
        return self._by_name.get(name, [])


def _index(columns: list[E.Expr]) -> dict[str, list[E.Expr]]:
    """Lower-case name -> the columns so named, in order (built once per entry or scope:
    a wide join's scope answered every unqualified name by scanning all its columns)."""
    out: dict[str, list[E.Expr]] = {}
    for c in columns:
        out.setdefault(column_name(c).lower(), []).append(c)
    return out


def _remapped(e: E.Expr, mapping: dict[int, E.Attribute]) -> E.Expr:
    # a function of the module, not a closure in `Scope.remap`: mypyc cannot compile a
    # closure inside a method of a record class
    if isinstance(e, E.Attribute) and e.expr_id in mapping:
        return mapping[e.expr_id]
    if isinstance(e, E.Alias):
        return transform_up(cast(E.Expr, e), lambda n: mapping.get(n.expr_id, n)
                            if isinstance(n, E.Attribute) else n)
    return e


def column_name(e: E.Expr) -> str:
    if isinstance(e, (E.Attribute, E.Alias)):
        return e.name
    raise TypeError(e)


@record
class Scope:
    entries: list[Entry] = field(default_factory=list)
    star: list[E.Expr] = field(default_factory=list)
    parent: "Scope | None" = None
    ctes: dict = field(default_factory=dict)  # CTE definitions visible here (name -> def)
    _star_by_name: dict | None = field(default=None, init=False, repr=False, compare=False)

    @staticmethod
    def of(qualifier: tuple[str, ...], columns: list[E.Expr], display: str = "") -> "Scope":
        return Scope([Entry(qualifier, list(columns), display)], list(columns))

    def combine(self, other: "Scope") -> "Scope":
        return Scope(self.entries + other.entries, self.star + other.star, self.parent, self.ctes)

    def with_parent(self, parent: "Scope | None", ctes: dict | None = None) -> "Scope":
        return Scope(self.entries, self.star, parent, self.ctes if ctes is None else ctes)

    def remap(self, mapping: dict[int, E.Attribute]) -> "Scope":
        """Replace attributes by id (after an outer join changed their nullability)."""
        return Scope([Entry(en.qualifier, [_remapped(c, mapping) for c in en.columns], en.display,
                            [_remapped(c, mapping) for c in en.hidden])
                      for en in self.entries],
                     [_remapped(c, mapping) for c in self.star], self.parent, self.ctes)

    # -- resolution ----------------------------------------------------------
    def lookup_local(self, parts: tuple[str, ...], display: str) -> tuple[E.Expr | None, list[str]]:
        """Resolve in this scope only; returns (expr or None, remaining field parts)."""
        lowered = tuple(p.lower() for p in parts)
        # qualified: the longest qualifier prefix that names an entry
        for qlen in range(len(lowered) - 1, 0, -1):
            qual, rest = lowered[:qlen], lowered[qlen:]
            matching = [en for en in self.entries if en.matches(qual)]
            if not matching:
                continue
            found = []
            for en in matching:
                found.extend(en.named(rest[0]))
            found = _dedupe(found)
            if len(found) > 1:
                raise AmbiguousReferenceError(display, [self._describe(c) for c in found])
            if found:
                return found[0], list(parts[qlen + 1:])
        if self._star_by_name is None:
            self._star_by_name = _index(self.star)
        found = _dedupe(self._star_by_name.get(lowered[0], []))
        if len(found) > 1:
            raise AmbiguousReferenceError(display, [self._describe(c) for c in found])
        if found:
            return found[0], list(parts[1:])
        return self._lookup_hidden(lowered, parts, display)

    def _lookup_hidden(self, lowered: tuple[str, ...], parts: tuple[str, ...],
                       display: str) -> tuple[E.Expr | None, list[str]]:
        """A name no column has, read as a hidden column (Spark's metadata columns, which
        it resolves after the output's: `_metadata`, `t._metadata.file_name`)."""
        if not any(en.hidden for en in self.entries):
            return None, []
        for qlen in range(len(lowered) - 1, -1, -1):
            qual, rest = lowered[:qlen], lowered[qlen:]
            found = _dedupe([c for en in self.entries if not qual or en.matches(qual)
                             for c in en.hidden if column_name(c).lower() == rest[0]])
            if len(found) > 1:
                return None, []  # (which one Spark picks is not modelled: the session's to say)
            if found:
                return found[0], list(parts[qlen + 1:])
        return None, []

    def resolve(self, parts: tuple[str, ...], display: str, position: str = "") -> tuple[E.Expr, list[str], int]:
        """Resolve a (possibly qualified) column name; returns (expr, field parts,
        depth) where depth 0 is this scope and >0 an enclosing query's."""
        scope: Scope | None = self
        depth = 0
        while scope is not None:
            found, rest = scope.lookup_local(parts, display)
            if found is not None:
                return found, rest, depth
            scope, depth = scope.parent, depth + 1
        raise UnknownColumnError(display, self.visible_names(), position)

    def _describe(self, c) -> str:
        return _describe_in(self.entries, c)

    def visible_names(self) -> list[str]:
        names = []
        for en in self.entries:
            q = en.display or ".".join(en.qualifier)
            for c in en.columns:
                names.append(f"{q}.{column_name(c)}" if q else column_name(c))
        return names

    def expand_star(self, qualifier: tuple[str, ...] | None) -> list[E.Expr]:
        if qualifier is None:
            return list(self.star)
        lowered = tuple(p.lower() for p in qualifier)
        out = []
        for en in self.entries:
            if en.matches(lowered):
                out.extend(en.columns)
        if not out:
            raise UnknownColumnError(".".join(qualifier) + ".*", self.visible_names())
        return out


def _dedupe(items):
    seen, out = set(), []
    for c in items:
        key = c.expr_id if isinstance(c, (E.Attribute, E.Alias)) else id(c)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _describe_in(entries, c) -> str:
    for en in entries:
        if any(x is c for x in en.columns):
            q = en.display or ".".join(en.qualifier)
            if q:
                return f"{q}.{column_name(c)}"
    return column_name(c)
