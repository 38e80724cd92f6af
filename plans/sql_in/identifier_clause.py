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

from sqlglot.errors import TokenError
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


def as_names(sql: str) -> tuple[str, list[tuple[str, str]], list[tuple[str, ...]]] | None:
    """(the text with each IDENTIFIER clause written as its name, [(padded name, clause
    text)], [each clause's name parts]), or None when the text holds a clause this cannot
    write so."""
    try:
        tokens = DIALECT.tokenize(sql)
    except TokenError:
        return None
    out, last, clauses, names = [], 0, [], []
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
        names.append(tuple(p.strip("`").replace("``", "`") for p in _PARTS.findall(name)))
        last = end
        i = j + 1
    if not clauses:
        return None
    out.append(sql[last:])
    return "".join(out), clauses, names


def restored(output: str, read: str, clauses: list[tuple[str, str]]) -> str:
    """The output with the padded names it kept as written (as `read`, the text optimized,
    holds them: nowhere else, not inside a string) put back as their clauses."""
    for padded, clause in dict(clauses).items():
        n = sum(p == padded for p, _ in clauses)
        if read.count(padded) == n and output.count(padded) <= n:
            output = output.replace(padded, clause)
    return output
