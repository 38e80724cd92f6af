"""The Spark functions the optimizer models, and the names of those it only recognizes.

A modelled function has a `FunctionSpec`: its result type and nullability from its
arguments, whether it is null-intolerant (any NULL argument gives NULL), deterministic,
foldable, and whether it may raise under ANSI.  Anything else is analyzed into an
`Opaque` expression; the name lists below only say what *kind* of thing an unmodelled
function is (aggregate, window-only, generator, non-deterministic), which decides how a
query around it is analyzed.  The lists were read off PySpark 4.3's FunctionRegistry.
"""

from __future__ import annotations

from typing import Callable

from . import types as T
from .records import record

# the marker call a variant path (`v:a.b`) is read as (plans.sql_in.variant_paths),
# printed back as the path by plans.ir.dialect
VARIANT_PATH = "__sf_variant_path"


def _any_nullable(args) -> bool:
    return any(a.nullable for a in args)


def _true(args) -> bool:
    return True


def _false(args) -> bool:
    return False


@record(frozen=True)
class FunctionSpec:
    name: str
    result_type: Callable  # args -> DataType | None
    nullable: Callable = _any_nullable  # args -> bool
    null_intolerant: bool = True
    deterministic: bool = True
    foldable: bool = True
    may_raise: Callable = _false  # args -> bool
    min_args: int = 0
    max_args: int | None = None
    # args -> bool: Spark takes the arguments' types as they are, with no implicit cast
    # (which may raise, or which Spark's analysis may refuse: `substring(NULL, TRUE)`).
    # Only then may a call be evaluated, or folded to NULL for a NULL argument.
    exact_args: Callable = _true
    # the kinds of type Spark takes for the leading arguments (see `accepts`); one
    # past them takes any type
    inputs: tuple = ()


def _positions(*kinds: Callable[[T.DataType], bool]) -> Callable:
    """exact_args: the i-th argument's type passes kinds[i] (the last kind repeats)."""

    def check(args) -> bool:
        return all(kinds[min(i, len(kinds) - 1)](a.data_type) for i, a in enumerate(args))

    return check


def _string(t) -> bool:
    return t in (T.STRING, T.NULL)


def _number(t) -> bool:
    return T.is_numeric(t) or t == T.NULL


def _int32(t) -> bool:
    return t in (T.BYTE, T.SHORT, T.INT, T.NULL)


def _date(t) -> bool:
    return t in (T.DATE, T.NULL)


# Kinds of argument type, as Spark's functions declare them (ImplicitCastInputTypes:
# a type that casts implicitly is taken too), read off Spark 4.3 by the type oracle
# (tests/oracles/expr_types.py).  Each is (type, ansi) -> the type Spark casts an
# argument of that type to (itself where none), or None where Spark does not take it
# (an array, a struct, a type not modelled: such a call is not modelled).
def ANY(t, ansi) -> T.DataType | None:
    return t


def DATES(t, ansi) -> T.DataType | None:
    """a date (a string, a timestamp, cast to one)."""
    return T.DATE if t in (T.STRING, T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ, T.NULL) else None


def DAY_COUNTS(t, ansi) -> T.DataType | None:
    """a number of days of date_add: tinyint, smallint, int (a string under ANSI)."""
    if t in (T.BYTE, T.SHORT, T.INT):
        return t
    return T.INT if t == T.NULL or (ansi and t == T.STRING) else None


def BYTES(t, ansi) -> T.DataType | None:
    """binary (a string cast to one)."""
    return T.BINARY if t in (T.STRING, T.BINARY, T.NULL) else None


def NUMBERS(t, ansi) -> T.DataType | None:
    """a number (a string cast to a double)."""
    return t if T.is_numeric(t) else T.DOUBLE if t in (T.STRING, T.NULL) else None


def SIGNED(t, ansi) -> T.DataType | None:
    """a number or an ANSI interval (a string cast to a double: abs)."""
    if t in T.DAY_TIME_INTERVALS or t in T.YEAR_MONTH_INTERVALS:
        return t
    return NUMBERS(t, ansi)


def INTS(t, ansi) -> T.DataType | None:
    """an int (any number or string cast to one: substring's position and length)."""
    return T.INT if T.is_numeric(t) or t in (T.STRING, T.NULL) else None


def NUMBERS_ONLY(t, ansi) -> T.DataType | None:
    return t if T.is_numeric(t) or t == T.NULL else None


def BOOLEANS(t, ansi) -> T.DataType | None:
    """a boolean (a string under ANSI)."""
    return T.BOOLEAN if t in (T.BOOLEAN, T.NULL) or (ansi and t == T.STRING) else None


def ATOMS(t, ansi) -> T.DataType | None:
    """a value of an atomic type (a number, a string, a boolean, binary, a date or a
    timestamp), as it is: approx_count_distinct's hashed values (the others, arrays,
    maps, structs, intervals, are not modelled there)."""
    atomic = T.is_numeric(t) or t in (T.STRING, T.BOOLEAN, T.BINARY, T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ, T.NULL)
    return t if atomic else None


def COLLECTIONS(t, ansi) -> T.DataType | None:
    return t if isinstance(t, (T.ArrayType, T.MapType)) or t == T.NULL else None


def input_types(inputs: tuple, types, ansi: bool) -> list[T.DataType] | None:
    """The types Spark casts the leading arguments to (by the `inputs` kinds), or None
    where it does not take one of them."""
    out = [kind(t, ansi) for kind, t in zip(inputs, types)]
    return None if None in out else out


def accepts(inputs: tuple, types, ansi: bool) -> bool:
    """Does Spark take arguments of these types, the leading ones of the `inputs` kinds?"""
    return input_types(inputs, types, ansi) is not None


def _same_as_first(args):
    return args[0].data_type if args else None


def _const(t):
    return lambda args: t


def _common(args):
    return T.wider_type_of(a.data_type for a in args)


def _string_result(args):
    return T.STRING


def _concat_type(args):
    """concat of binaries only is a binary, of arrays an array (of arrays alike but for
    nullability only: their merged type, else not modelled), else a string (a NULL among
    binaries makes it a string: checked by tests/test_oracle_expr_types.py)."""
    types = [a.data_type for a in args]
    if any(isinstance(t, T.ArrayType) for t in types):
        if not all(isinstance(t, T.ArrayType) for t in types) or any(T.contains_unknown(t) for t in types):
            return None
        return T.merged_null_flags(types)
    if T.UNKNOWN in types:
        return None
    return T.BINARY if types and all(t == T.BINARY for t in types) else T.STRING


def _substring_type(args):
    """substr of a binary is a binary."""
    t = args[0].data_type if args else T.STRING
    return None if t == T.UNKNOWN else T.BINARY if t == T.BINARY else T.STRING


SCALAR_FUNCTIONS: dict[str, FunctionSpec] = {}


def _register(*specs: FunctionSpec) -> None:
    for s in specs:
        SCALAR_FUNCTIONS[s.name] = s


def _nullif_type(args):
    return args[0].data_type


def _nanvl_type(args):
    """The first argument's type when it is a float and the second a float or NULL, else
    double (Spark casts a NULL first argument, and every other one, to double)."""
    types = [a.data_type for a in args]
    if types[0] == T.FLOAT and all(t in (T.FLOAT, T.NULL) for t in types[1:]):
        return T.FLOAT
    return T.DOUBLE if all(T.is_numeric(t) or t in (T.NULL, T.STRING) for t in types) else None


def _numeric_or_double(args):
    t = args[0].data_type if args else None
    return T.DOUBLE if t in (T.NULL, T.STRING) else t  # (a string is cast to a double)


def _abs_raises(args):
    return not T.is_fractional(args[0].data_type)


def _round_type(args):
    t = args[0].data_type
    if t == T.NULL:
        return T.DOUBLE
    if isinstance(t, T.DecimalType):
        return None  # precision/scale rules of round: left unmodelled
    return t if T.is_numeric(t) else None


_register(
    # nullif(a, b) = IF(a = b, NULL, a): NULL whenever a is, and also when a = b.
    FunctionSpec("nullif", _nullif_type, nullable=_true, null_intolerant=False, min_args=2, max_args=2,
                 may_raise=lambda args: args[0].data_type != args[1].data_type),
    # nanvl(a, b): a unless a is NaN; NULL if a is NULL; b (maybe NULL) if a is NaN.
    FunctionSpec("nanvl", _nanvl_type, nullable=_any_nullable, null_intolerant=False, min_args=2, max_args=2),
    # isnan(NULL) is FALSE, never NULL.
    FunctionSpec("isnan", _const(T.BOOLEAN), nullable=_false, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    # greatest / least skip NULLs: NULL only if every argument is.
    FunctionSpec("greatest", _common, nullable=lambda args: all(a.nullable for a in args),
                 null_intolerant=False, min_args=2),
    FunctionSpec("least", _common, nullable=lambda args: all(a.nullable for a in args),
                 null_intolerant=False, min_args=2),
    FunctionSpec("abs", _numeric_or_double, may_raise=_abs_raises, min_args=1, max_args=1,
                 exact_args=_positions(_number), inputs=(SIGNED,)),
    *(FunctionSpec(name, _string_result, min_args=1, max_args=1, exact_args=_positions(_string))
      for name in ("upper", "lower", "ucase", "lcase", "trim", "ltrim", "rtrim")),
    *(FunctionSpec(name, _const(T.INT), min_args=1, max_args=1, exact_args=_positions(_string))
      for name in ("length", "char_length", "character_length")),
    *(FunctionSpec(name, _substring_type, min_args=2, max_args=3, exact_args=_positions(_string, _int32),
                   inputs=(ANY, INTS, INTS))
      for name in ("substring", "substr")),
    FunctionSpec("concat", _concat_type, min_args=1, exact_args=_positions(_string)),
    # (Spark types round nullable whatever its arguments: RoundBase.nullable)
    FunctionSpec("round", _round_type, nullable=_true, min_args=1, max_args=2,
                 may_raise=lambda args: not T.is_fractional(args[0].data_type),
                 exact_args=_positions(_number, _int32), inputs=(NUMBERS,)),
    FunctionSpec("like", _const(T.BOOLEAN), min_args=2, max_args=2,
                 may_raise=_true, exact_args=_positions(_string)),
    # between(v, lo, hi) = v >= lo AND v <= hi: not null-intolerant (1 BETWEEN NULL AND 0 is FALSE)
    FunctionSpec("between", _const(T.BOOLEAN), null_intolerant=False, min_args=3, max_args=3,
                 may_raise=lambda args: len({a.data_type for a in args} - {T.NULL}) > 1),
    FunctionSpec("date_add", _const(T.DATE), min_args=2, max_args=2, may_raise=_true,
                 exact_args=_positions(_date, _int32), inputs=(DATES, DAY_COUNTS)),
    FunctionSpec("date_sub", _const(T.DATE), min_args=2, max_args=2, may_raise=_true,
                 exact_args=_positions(_date, _int32), inputs=(DATES, DAY_COUNTS)),
    FunctionSpec("datediff", _const(T.INT), min_args=2, max_args=2, may_raise=_true,
                 exact_args=_positions(_date), inputs=(DATES, DATES)),
    *(FunctionSpec(name, _const(T.INT), min_args=1, max_args=1, may_raise=_true, exact_args=_positions(_date),
                   inputs=(DATES,))
      for name in ("year", "month", "dayofmonth")),
    FunctionSpec("current_date", _const(T.DATE), nullable=_false, null_intolerant=False,
                 foldable=False, min_args=0, max_args=0),
    FunctionSpec("current_timestamp", _const(T.TIMESTAMP), nullable=_false, null_intolerant=False,
                 foldable=False, min_args=0, max_args=0),
)


# ---------------------------------------------------------------------------
# Aggregates
# ---------------------------------------------------------------------------


def _sum_type(args):
    return T.sum_type(args[0].data_type) if args else None


def _avg_type(args):
    return T.avg_type(args[0].data_type) if args else None


def _array_of_first(args):
    return T.ArrayType(args[0].data_type, False) if args else None


AGGREGATE_FUNCTIONS: dict[str, FunctionSpec] = {}


def _register_agg(*specs: FunctionSpec) -> None:
    for s in specs:
        AGGREGATE_FUNCTIONS[s.name] = s


def _sum_raises(args):
    t = args[0].data_type
    return not T.is_fractional(t)


_register_agg(
    FunctionSpec("count", _const(T.LONG), nullable=_false, null_intolerant=False, min_args=1),
    FunctionSpec("sum", _sum_type, nullable=_true, null_intolerant=False, may_raise=_sum_raises,
                 min_args=1, max_args=1),
    FunctionSpec("avg", _avg_type, nullable=_true, null_intolerant=False, may_raise=_sum_raises,
                 min_args=1, max_args=1),
    FunctionSpec("mean", _avg_type, nullable=_true, null_intolerant=False, may_raise=_sum_raises,
                 min_args=1, max_args=1),
    FunctionSpec("min", _same_as_first, nullable=_true, null_intolerant=False, min_args=1, max_args=1),
    FunctionSpec("max", _same_as_first, nullable=_true, null_intolerant=False, min_args=1, max_args=1),
    FunctionSpec("stddev_samp", _const(T.DOUBLE), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    FunctionSpec("stddev", _const(T.DOUBLE), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    FunctionSpec("std", _const(T.DOUBLE), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    FunctionSpec("stddev_pop", _const(T.DOUBLE), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    FunctionSpec("variance", _const(T.DOUBLE), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    FunctionSpec("var_samp", _const(T.DOUBLE), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    FunctionSpec("var_pop", _const(T.DOUBLE), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(NUMBERS,)),
    FunctionSpec("first", _same_as_first, nullable=_true, null_intolerant=False, min_args=1, max_args=1),
    FunctionSpec("last", _same_as_first, nullable=_true, null_intolerant=False, min_args=1, max_args=1),
    FunctionSpec("any_value", _same_as_first, nullable=_true, null_intolerant=False, min_args=1, max_args=1),
    FunctionSpec("collect_list", _array_of_first, nullable=_false, null_intolerant=False, min_args=1, max_args=1),
    FunctionSpec("collect_set", _array_of_first, nullable=_false, null_intolerant=False, min_args=1, max_args=1),
    # (one argument: a relative standard deviation, its second, stays as written)
    FunctionSpec("approx_count_distinct", _const(T.LONG), nullable=_false, null_intolerant=False, min_args=1,
                 max_args=1, inputs=(ATOMS,)),
    FunctionSpec("count_if", _const(T.LONG), nullable=_false, null_intolerant=False, min_args=1, max_args=1, inputs=(BOOLEANS,)),
    FunctionSpec("bool_and", _const(T.BOOLEAN), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(BOOLEANS,)),
    FunctionSpec("bool_or", _const(T.BOOLEAN), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(BOOLEANS,)),
    FunctionSpec("every", _const(T.BOOLEAN), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(BOOLEANS,)),
    FunctionSpec("some", _const(T.BOOLEAN), nullable=_true, null_intolerant=False, min_args=1, max_args=1, inputs=(BOOLEANS,)),
)

# Values an aggregate gives over no rows (a global aggregate over an empty input).
# count -> 0; everything else in AGGREGATE_FUNCTIONS except collect_* -> NULL.
EMPTY_INPUT_ZERO = frozenset({"count", "count_if", "approx_count_distinct"})
# the aggregates kept as written (not modelled, the query analyzed) over arguments of the
# types their `inputs` do not take (the others are not modelled there)
OPAQUE_BEYOND_INPUTS = frozenset({"approx_count_distinct"})
EMPTY_INPUT_EMPTY_ARRAY = frozenset({"collect_list", "collect_set"})


# ---------------------------------------------------------------------------
# Names of functions the optimizer does not model, by kind (held to Spark's registry
# by tests/test_oracle_function_docs.py: its aggregates, window functions, generators
# and non-deterministic functions, as tests/oracles/golden/function_registry.json has them)
# ---------------------------------------------------------------------------

KNOWN_AGGREGATE_NAMES = frozenset("""
any any_value approx_count_distinct approx_percentile approx_top_k approx_top_k_accumulate
approx_top_k_combine array_agg avg bit_and bit_or bit_xor bitmap_and_agg bitmap_construct_agg
bitmap_or_agg bool_and bool_or collect_list collect_set collect_union corr count count_if
count_min_sketch covar_pop covar_samp every first first_value histogram_numeric hll_sketch_agg hll_union_agg
kll_merge_agg_bigint kll_merge_agg_double kll_merge_agg_float kll_sketch_agg_bigint
kll_sketch_agg_double kll_sketch_agg_float kurtosis last last_value listagg max max_by mean
measure median min min_by mode percentile percentile_approx percentile_cont percentile_disc
regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy
schema_of_variant_agg skewness some std stddev stddev_pop stddev_samp string_agg sum
theta_intersection_agg theta_sketch_agg theta_union_agg tuple_intersection_agg_double
tuple_intersection_agg_integer tuple_sketch_agg_double tuple_sketch_agg_integer tuple_union_agg_double
tuple_union_agg_integer var_pop var_samp variance vector_avg vector_sum try_sum try_avg
grouping grouping_id
""".split())

WINDOW_ONLY_NAMES = frozenset("""
cume_dist dense_rank nth_value ntile percent_rank rank row_number lag lead
""".split())

GENERATOR_NAMES = frozenset("""
explode explode_outer posexplode posexplode_outer inline inline_outer stack json_tuple
""".split())

NONDETERMINISTIC_NAMES = frozenset("""
input_file_block_length input_file_block_start input_file_name java_method
monotonically_increasing_id rand randn random randstr reflect shuffle spark_partition_id uuid
uniform try_reflect
""".split())


# Result types of scalar functions the optimizer does not model.  They stay opaque (no
# rule reasons about their values: treated as non-deterministic, nullable, possibly
# raising); the type is for what surrounds them (explain, the operators above) and is
# Spark 4's, each checked against Spark by tests/test_opaque_types.py.  (Window
# functions are typed by the analyzer's `window_type`.)
OPAQUE_RESULT_TYPES: dict[str, Callable] = {
    **{n: _const(T.DATE) for n in ("to_date", "trunc", "last_day", "add_months", "next_day")},
    "date_trunc": _const(T.TIMESTAMP),
    # (of the type spark.sql.timestampType names: `opaque_result_type`)
    "to_timestamp": _const(T.TIMESTAMP),
    **{n: _const(T.STRING) for n in ("date_format", "from_unixtime", "concat_ws", "regexp_replace",
                                     "regexp_extract", "lpad", "rpad", "md5", "sha1", "sha2", "initcap",
                                     "translate", "format_number", "base64", "hex")},
    **{n: _const(T.INT) for n in ("dayofweek", "weekofyear", "quarter", "hour", "minute", "second", "size",
                                  "instr", "locate")},
    "months_between": _const(T.DOUBLE),
    "unix_timestamp": _const(T.LONG),
    "split": _const(T.ArrayType(T.STRING, True)),
    "array_contains": lambda ts: _array_contains_type(ts),
}


def _array_contains_type(types) -> "T.DataType | None":
    """array_contains(array<T>, v): a boolean, where v is of T but for nullability (other
    types Spark coerces or rejects: not modelled)."""
    if len(types) != 2 or not isinstance(types[0], T.ArrayType) or types[1] == T.NULL:
        return None
    return T.BOOLEAN if T.merged_null_flag(types[0].element, types[1]) is not None else None


# The kinds of argument those functions take (see `accepts`); with others Spark rejects
# the call (or it is not modelled), which stays of an unknown type
OPAQUE_INPUTS: dict[str, tuple] = {
    **{n: (DATES,) for n in ("trunc", "last_day", "next_day", "date_format", "dayofweek",
                             "weekofyear", "quarter", "hour", "minute", "second", "months_between",
                             "unix_timestamp")},
    "date_trunc": (ANY, DATES),
    "add_months": (DATES, NUMBERS),
    "from_unixtime": (NUMBERS,),
    "format_number": (NUMBERS_ONLY,),
    **{n: (BYTES,) for n in ("md5", "sha1", "sha2", "base64")},
    "size": (COLLECTIONS,),
}


def opaque_result_type(name: str, arg_types: list, ansi: bool = True,
                       timestamp: "T.DataType" = T.TIMESTAMP) -> "T.DataType":
    """The type of an unmodelled function's result, or UNKNOWN.  `timestamp`: the type
    spark.sql.timestampType names, to_timestamp's."""
    fn = OPAQUE_RESULT_TYPES.get(name)
    if fn is None or any(t == T.UNKNOWN for t in arg_types) or \
            not accepts(OPAQUE_INPUTS.get(name, ()), arg_types, ansi):
        return T.UNKNOWN
    t = timestamp if name == "to_timestamp" else fn(arg_types)
    return t if t is not None else T.UNKNOWN
