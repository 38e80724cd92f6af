"""An expression sparkfold does not model (`E.Opaque`: a function it does not know, a window
function) as DataFrame calls, from its sqlglot template: a call `f(a, b)` is
`F.call_function("f", a, b)`, which builds the node Spark's parser builds for the text
(an unresolved function of that name and those arguments); a window is `.over(Window...)`.

The template is translated whole or not at all (then it goes as `F.expr` text): a call is
taken only when its Spark text is exactly `name(arg, ...)` with its arguments in the
order sqlglot holds them, and only of parts translated the same way: the placeholders
(the analyzed arguments, already lowered), integer, plain string, boolean and NULL
literals, casts, arithmetic, comparisons and the logical operators.  Not taken:
`struct(...)` (it names its fields after the columns as written, which the program
renames), generators, lambdas, `*`, DISTINCT, named arguments, sparkfold's own
typed-literal forms; a window with a RANGE frame of offsets (the DataFrame API types them
as BIGINT, the SQL text as written)."""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX, DIALECT, timestamp_precision
from .values import py_str

_NOT_CALLED = frozenset({"struct", "explode", "explode_outer", "posexplode", "posexplode_outer", "inline",
                         "inline_outer", "stack", "json_tuple", "named_struct", "grouping", "grouping_id"})

# names Spark's grammar reads with three arguments as a syntax of its own, not a call of
# the registry's function (`dateadd(unit, n, ts)`: timestampadd, whose unit is a word; a
# string there is INVALID_PARAMETER_VALUE.DATETIME_UNIT): F.call_function would ask the
# registry (`date_add` of 3 arguments: WRONG_NUM_ARGS), so they stay text
_GRAMMAR_CALLS_OF_3 = frozenset({"timestampadd", "dateadd", "date_add", "timestampdiff", "datediff", "date_diff",
                                 "timediff"})

_GENERATORS = frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer",
                         "stack"})

_OPERATORS: dict[type, str] = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%",
    exp.EQ: "==", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=",
    exp.And: "&", exp.Or: "|",
}

_INT = 2 ** 31


class _NoForm(Exception):
    pass


def opaque_code(e: E.Opaque, args: list[str], imports: set[str]) -> str | None:
    """Python code of a Column computing e from its lowered arguments, or None."""
    return template_code(e.template, args, e.args, imports)


def operator_code(t: exp.Expression) -> bool:
    """Is the template's code a Python operator expression (`a - b`, `-a`, `~a`), which a
    method called on it (`.alias(...)`) needs parenthesized?"""
    while isinstance(t, exp.Paren):
        t = t.this
    return type(t) in _OPERATORS or isinstance(t, (exp.Neg, exp.Not))


def template_code(t: exp.Expression, args: list[str], analyzed: tuple[E.Expr, ...], imports: set[str],
                  grouping: bool = False, generator: bool = False) -> str | None:
    """Python code of a Column computing the template t, whose placeholders are the
    `analyzed` expressions lowered to `args`, or None.  `grouping`: the select list of a
    GROUPING SETS / CUBE / ROLLUP block (grouping() and grouping_id() taken, no window);
    `generator`: t is a select item that may be a generator call (`explode(...)`)."""
    try:
        return _Translator(args, analyzed, imports, grouping, generator).code(t)
    except _NoForm:
        return None


class _Translator:
    def __init__(self, args: list[str], analyzed: tuple[E.Expr, ...], imports: set[str], grouping: bool = False,
                 generator: bool = False):
        self.args = args
        self.analyzed = analyzed
        self.grouping = grouping
        self.generator = generator  # (the top node only)
        self.imports = imports

    def code(self, t) -> str:
        match t:
            case exp.Column() if t.name.startswith(ARG_PREFIX) and not t.table:
                return self.args[int(t.name[len(ARG_PREFIX):])]
            case exp.Paren():
                return self.code(t.this)
            case exp.Literal():
                return _literal(t)
            case exp.Boolean():
                return f"F.lit({bool(t.this)!r})"
            case exp.Null():
                return "F.lit(None)"
            case exp.Neg() if isinstance(t.this, exp.Literal) and not t.this.is_string \
                    and str(t.this.this).isdigit() and int(str(t.this.this)) < _INT:
                return f"F.lit({-int(str(t.this.this))})"  # Spark's parser reads `-1` as one literal
            case exp.Neg():
                return f"-{self.operand(t.this)}"
            case exp.Is() if isinstance(t.expression, exp.Null):
                return f"{self.operand(t.this)}.isNull()"
            case exp.Not() if isinstance(t.this, exp.Is) and isinstance(t.this.expression, exp.Null):
                return f"{self.operand(t.this.this)}.isNotNull()"
            case exp.Not():
                return f"~{self.operand(t.this)}"
            case exp.Cast() if type(t) in (exp.Cast, exp.TryCast) and not t.args.get("format"):
                # (sqlglot reads Spark's CAST as a TryCast: what the text says decides)
                to = t.args.get("to")
                text = t.sql(dialect=DIALECT)
                method = "cast" if text.startswith("CAST(") else "try_cast" if text.startswith("TRY_CAST(") else None
                if not isinstance(to, exp.DataType) or method is None or timestamp_precision(to):
                    # (`.cast(type)` reads a nanosecond type with the settings of the active
                    # session, not the DataFrame's: SQL text, which the DataFrame's reads)
                    raise _NoForm
                return f"{self.operand(t.this)}.{method}({py_str(to.sql(dialect=DIALECT))})"
            case exp.Window() if not self.grouping:
                return self.window(t)
            case exp.Func() if type(t) not in _OPERATORS:  # (sqlglot's AND / OR are Funcs too)
                return self.call(t)
        op = _OPERATORS.get(type(t))
        if op is not None and t.this is not None and t.args.get("expression") is not None:
            return f"{self.operand(t.this)} {op} {self.operand(t.args['expression'])}"
        raise _NoForm

    def operand(self, t) -> str:
        code = self.code(t)
        return code if _atomic(code) else f"({code})"

    def call(self, f: exp.Func) -> str:
        generator, self.generator = self.generator, False
        if type(f) is exp.Count and isinstance(f.this, exp.Star) and not f.expressions:
            return "F.count(F.lit(1))"  # count(*): Spark's parser makes it count(1)
        kids = list(f.expressions) if isinstance(f, exp.Anonymous) else _arguments(f)
        if kids is None or any(isinstance(k, (exp.Lambda, exp.Star, exp.Distinct, exp.Kwarg, exp.PropertyEQ,
                                              exp.Order, exp.Ordered, exp.Slice, exp.Select))
                               for k in kids):
            raise _NoForm
        text = f.sql(dialect=DIALECT)
        name = text.split("(", 1)[0]
        grouping = self.grouping and name.lower() in ("grouping", "grouping_id")
        generator = generator and name.lower() in _GENERATORS
        if not name.replace("_", "").isalnum() or (name.lower() in _NOT_CALLED and not grouping and not generator) \
                or name.lower().startswith("__sf") or (name.lower() in _GRAMMAR_CALLS_OF_3 and len(kids) == 3):
            raise _NoForm
        if text != f"{name}({', '.join(k.sql(dialect=DIALECT) for k in kids)})":
            raise _NoForm  # written otherwise than as a plain call of its arguments in order
        return f"F.call_function({py_str(name.lower())}{''.join(', ' + self.code(k) for k in kids)})"

    def window(self, w: exp.Window) -> str:
        if w.args.get("alias") or isinstance(w.this, exp.Window) or w.args.get("first") is not None:
            raise _NoForm  # a named window, or FIRST / LAST modifiers
        if isinstance(w.this, (exp.IgnoreNulls, exp.RespectNulls, exp.WithinGroup, exp.Filter)):
            raise _NoForm
        func = self.code(w.this)
        spec = "Window"
        parts = w.args.get("partition_by") or []
        spec += f".partitionBy({', '.join(self.code(p) for p in parts)})" if parts else ""
        order = w.args.get("order")
        if order is not None:
            spec += f".orderBy({', '.join(self.ordered(o) for o in order.expressions)})"
        frame = w.args.get("spec")
        if frame is not None:
            spec += self.frame(frame)
        if spec == "Window":
            spec = "Window.partitionBy()"
        self.imports.add("from pyspark.sql import Window")
        return f"{receiver(func)}.over({spec})"

    def ordered(self, o: exp.Expression) -> str:
        if not isinstance(o, exp.Ordered):
            raise _NoForm
        desc = bool(o.args.get("desc"))
        nulls_first = o.args.get("nulls_first")
        if nulls_first is None:
            raise _NoForm
        return f"{self.operand(o.this)}.{'desc' if desc else 'asc'}_nulls_{'first' if nulls_first else 'last'}()"

    def frame(self, s: exp.WindowSpec) -> str:
        kind = (s.args.get("kind") or "").upper()
        if kind not in ("ROWS", "RANGE") or s.args.get("exclude"):
            raise _NoForm
        bounds = []
        end = s.args.get("end") or "CURRENT ROW"  # `ROWS n PRECEDING`: up to the current row
        for value, side, first in ((s.args.get("start"), s.args.get("start_side"), True),
                                   (end, s.args.get("end_side"), False)):
            bounds.append(self.bound(value, side, kind, first))
        return f".{'rowsBetween' if kind == 'ROWS' else 'rangeBetween'}({bounds[0]}, {bounds[1]})"


    def bound(self, value, side, kind: str, first: bool) -> str:
        """A frame boundary as `rowsBetween` / `rangeBetween` takes it.  Not taken: one that
        the DataFrame API checks itself, with another error than Spark's analysis of the
        text (UNBOUNDED FOLLOWING first or UNBOUNDED PRECEDING last, an offset beyond the
        INT range), and an offset of 0 (the API makes it CURRENT ROW)."""
        v = value.upper() if isinstance(value, str) else value
        if v == "UNBOUNDED":
            side = (side or "").upper()
            if side != ("PRECEDING" if first else "FOLLOWING"):
                raise _NoForm
            return "Window.unboundedPreceding" if first else "Window.unboundedFollowing"
        if v == "CURRENT ROW":
            return "Window.currentRow"
        n = None
        if isinstance(v, exp.Column) and v.name.startswith(ARG_PREFIX) and not v.table:
            arg = self.analyzed[int(v.name[len(ARG_PREFIX):])]
            if isinstance(arg, E.Literal) and arg.data_type == T.INT and isinstance(arg.value, int):
                n = arg.value
        elif isinstance(v, exp.Literal) and not v.is_string and str(v.this).isdigit():
            n = int(str(v.this))
        if kind != "ROWS" or n is None or not 0 < n < _INT:
            raise _NoForm
        return str(-n if (side or "").upper() == "PRECEDING" else n)


def _arguments(f: exp.Func) -> list[exp.Expression] | None:
    out: list[exp.Expression] = []
    for key in f.arg_types:
        v = f.args.get(key)
        if v is None or (key == "big_int" and type(f) is exp.Count):
            continue
        if isinstance(v, list):
            out.extend(v)
        elif isinstance(v, exp.Expression):
            out.append(v)
        else:
            return None  # a flag (a bool or a string): not an argument
    return out


def _literal(t: exp.Literal) -> str:
    if t.is_string:
        s = t.this
        if "\\" in s or not s.isprintable():
            raise _NoForm  # (escapes: left to Spark's parser)
        return f"F.lit({py_str(s)})"
    if str(t.this).isdigit() and int(str(t.this)) < _INT:
        return f"F.lit({int(str(t.this))})"
    raise _NoForm  # BIGINT, decimal, double... suffixes and digits: as Spark reads the text


def _atomic(code: str) -> bool:
    depth = 0
    for i, ch in enumerate(code):
        depth += ch in "(["
        depth -= ch in ")]"
        if depth == 0 and ch in " ~-" and i < len(code) - 1:
            return False
    return not code.startswith(("-", "~"))


def receiver(code: str) -> str:
    """code as a method's receiver (parenthesized unless atomic)."""
    return code if _atomic(code) else f"({code})"
