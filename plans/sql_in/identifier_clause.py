"""`IDENTIFIER('name')`: a name (of a column, a table, a function) given as a constant
string, which Spark reads as the name the string holds (`IDENTIFIER('t.c1')` is `t.c1`,
`IDENTIFIER('ta' || 'b')` is `tab`).

`as_names(sql)` writes each clause whose argument is string literals joined by `||` and
whose string is a name in Spark's syntax as that name, each part backquoted (a keyword
stays a name), padded with spaces to the clause's length so that every other token keeps
its place (findings point into the text as written).  The query is optimized as that
text (`optimizer.api`), and `restored` puts the clauses back where the output kept the
padded names.  A clause over anything else (a variable, a subquery, a cast, a string that
is no name, `IDENTIFIER('')`), after `AS` with a qualified name, where Spark's grammar
reads no clause (a parameter's name, before a field, EXTRACT's field), or naming a session
variable (Spark names `SELECT IDENTIFIER('v')` after the variable's value) is left to
Spark: the query passes through, as before.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from ..ir.dialect import DIALECT

_PART = r"(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)"
_NAME = re.compile(rf"{_PART}(?:\.{_PART})*")
_PARTS = re.compile(_PART)
CLAUSE = re.compile(r"(?i)\bidentifier\s*\(")
# the legacy clause (Spark 4.0's: a constant expression, evaluated at analysis, in fewer
# places), under which a clause is left to Spark: where it does not take one, a rewrite
# that dropped the clause would drop Spark's error
LEGACY = "spark.sql.legacy.identifierClause"


def legacy(unmodelled: tuple[tuple[str, str], ...]) -> bool:
    """Does the session read IDENTIFIER clauses as the legacy clause?"""
    return any(key == LEGACY and value.strip().lower() != "false" for key, value in unmodelled)


def _backquoted(name: str) -> str:
    return ".".join(p if p.startswith("`") else f"`{p}`" for p in _PARTS.findall(name))


def as_names(sql: str) -> tuple[str, list[tuple[str, str]], list[tuple[str, ...]], list[int]] | None:
    """(the text with each IDENTIFIER clause written as its name, [(padded name, clause
    text)], [each clause's name parts], [each clause's offset]), or None when the text
    holds a clause this cannot write so."""
    try:
        tokens = DIALECT.tokenize(sql)
    except TokenError:
        return None
    out, last, clauses, names, starts = [], 0, [], [], []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if not (t.token_type == TokenType.VAR and t.text.upper() == "IDENTIFIER" and i + 1 < len(tokens)
                and tokens[i + 1].token_type == TokenType.L_PAREN):
            i += 1
            continue
        j, strings = i + 2, []
        while j < len(tokens) and tokens[j].token_type == TokenType.STRING:
            strings.append(tokens[j].text)
            if j + 1 < len(tokens) and tokens[j + 1].token_type == TokenType.DPIPE:
                j += 2
            else:
                j += 1
                break
        if not strings or j >= len(tokens) or tokens[j].token_type != TokenType.R_PAREN:
            return None
        name = "".join(strings)
        before = tokens[i - 1].token_type if i > 0 else None
        after = tokens[j + 1].token_type if j + 1 < len(tokens) else None
        if _NAME.fullmatch(name) is None or (before == TokenType.ALIAS and len(_PARTS.findall(name)) > 1):
            return None
        if before in (TokenType.COLON, TokenType.DOT, TokenType.PARAMETER) or after in (TokenType.DOT, TokenType.L_BRACKET) \
                or (before == TokenType.L_PAREN and after == TokenType.FROM):
            # a parameter's name (`:IDENTIFIER(...)`), a field after the clause
            # (`IDENTIFIER('t').c1`), EXTRACT's field: Spark's grammar reads no clause there
            return None
        start, end = t.start, tokens[j].end + 1
        clause = sql[start:end]
        written = _backquoted(name)
        if len(written) > len(clause):
            return None
        # (a newline inside the clause stays, so every later token keeps its line)
        padded = written + "".join(c if c == "\n" else " " for c in clause[len(written):])
        out.append(sql[last:start])
        out.append(padded)
        clauses.append((padded, clause))
        starts.append(start)
        names.append(tuple(p.strip("`").replace("``", "`") for p in _PARTS.findall(name)))
        last = end
        i = j + 1
    if not clauses:
        return None
    out.append(sql[last:])
    return "".join(out), clauses, names, starts


def in_legacy_places(text: str, starts: list[int]) -> bool:
    """Does each name the clauses became (at `starts` in `text`, the text `as_names`
    wrote) stand where the legacy clause is read too: a column (an expression), a table
    in FROM or a join, a function's or a table function's name?  Spark's grammar under
    spark.sql.legacy.identifierClause reads `IDENTIFIER(expression)` only as a function
    name, a table reference and, as a call, an expression: an alias, a CTE's name, a
    column of USING or PIVOT ... FOR, a window's name or a lambda's parameter written so
    is a syntax error there, which the clause left to Spark keeps."""
    try:
        tree = sqlglot.parse_one(text, dialect=DIALECT)
    except (ParseError, TokenError):
        return False
    placed = {i.meta.get("start"): i for i in tree.find_all(exp.Identifier)}
    for start in starts:
        ident = placed.get(start)
        if ident is None:
            # a function sqlglot knows by its name (`abs`(c1) is an Abs): no identifier
            name = _NAME.match(text, start)
            if name is None or not text[name.end():].lstrip().startswith("("):
                return False
            continue
        parent = ident.parent
        if isinstance(parent, exp.Column) and parent.find_ancestor(exp.Pivot) is None:
            continue
        if isinstance(parent, exp.Table) and ident.arg_key in ("this", "db", "catalog") \
                and isinstance(parent.parent, (exp.From, exp.Join)):
            continue
        if isinstance(parent, exp.Anonymous) and ident.arg_key == "this":
            continue
        return False
    return True


def restored(output: str, read: str, clauses: list[tuple[str, str]]) -> str:
    """The output with the padded names it kept as written (as `read`, the text optimized,
    holds them: nowhere else, not inside a string) put back as their clauses."""
    for padded, clause in dict(clauses).items():
        n = sum(p == padded for p, _ in clauses)
        if read.count(padded) == n and output.count(padded) <= n:
            output = output.replace(padded, clause)
    return output
