"""Spark's bitwise and shift operators, which sqlglot reads as one level of precedence.

Spark's grammar binds them, tightest first: `<<` `>>` `>>>`, then `&`, then `^`, then `|`
(each level left to right, all looser than `+` and `-`): `5 ^ 3 & 1` is `5 ^ (3 & 1)`,
4, where sqlglot reads `(5 ^ 3) & 1`, 0.  sqlglot also has no `>>>` (the unsigned
shift), and reads `??` (no operator of Spark's) as COALESCE.

The tokens are corrected before parsing (`>>>` handed to the parser as the `??` it reads
at that level, a real `??` refused as Spark refuses it) and the trees after: each chain of
these operators that sqlglot built left-deep is rebuilt with Spark's precedence, and the
`??` nodes become right shifts marked unsigned (printed `>>>`, see `plans.ir.dialect`).
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from ..ir.dialect import UNSIGNED_SHIFT
from ..ir.errors import ParseError

# tighter binds higher
_LEVEL: dict[type, int] = {exp.BitwiseLeftShift: 3, exp.BitwiseRightShift: 3, exp.BitwiseAnd: 2,
                           exp.BitwiseXor: 1, exp.BitwiseOr: 0}
# the tokens of those operators (a shift is two `<` or two `>`)
TOKENS = frozenset({TokenType.AMP, TokenType.CARET, TokenType.PIPE, TokenType.DQMARK, TokenType.GT})


def unsigned_shift(tokens: list[Token], i: int) -> Token | None:
    """The `??` token standing for `>>>` when tokens[i:i+3] are three adjacent `>`."""
    if i + 2 < len(tokens) and all(tokens[i + k].token_type == TokenType.GT for k in range(3)) \
            and tokens[i + 1].start == tokens[i].end + 1 and tokens[i + 2].start == tokens[i + 1].end + 1:
        t = tokens[i]
        return Token(TokenType.DQMARK, ">>>", t.line, t.col, t.start, tokens[i + 2].end, t.comments)
    return None


def refuse_coalesce_operator(t: Token) -> None:
    if t.token_type == TokenType.DQMARK and t.text != ">>>":
        raise ParseError(f"syntax error near {t.text!r} (Spark SQL has no {t.text} operator)", t.line,
                         max(1, t.col - len(t.text) + 1))


def level_of(tokens: list[Token], i: int) -> int | None:
    """The precedence level of the operator starting at tokens[i] (-1 for `>>>`), or None
    when it is none of these (a comparison)."""
    tt = tokens[i].token_type
    if tt == TokenType.AMP:
        return 2
    if tt == TokenType.CARET:
        return 1
    if tt == TokenType.PIPE:
        return 0
    if tt in (TokenType.LT, TokenType.GT) and i + 1 < len(tokens) and tokens[i + 1].token_type == tt \
            and tokens[i + 1].start == tokens[i].end + 1:
        return -1 if unsigned_shift(tokens, i) is not None else 3
    return None


def restore(trees: list) -> list:
    """The trees with Spark's `>>>` and precedence (in place; a root may be replaced)."""
    out = list(trees)
    for k, tree in enumerate(out):
        if tree is None:
            continue
        for node in list(tree.walk()):
            if isinstance(node, exp.Coalesce) and "name" not in (node.meta or {}) and len(node.expressions) == 1:
                shift = exp.BitwiseRightShift(this=node.this, expression=node.expressions[0])
                shift.meta[UNSIGNED_SHIFT] = True
                if node is out[k]:
                    out[k] = tree = shift
                else:
                    node.replace(shift)
        roots = [n for n in tree.walk() if type(n) in _LEVEL and type(n.parent) not in _LEVEL]
        for root in roots:
            rebuilt = _reassociated(root)
            if rebuilt is not root:
                if root is out[k]:
                    out[k] = rebuilt
                else:
                    root.replace(rebuilt)
    return out


def _reassociated(root: exp.Expression) -> exp.Expression:
    """The left-deep chain under `root` rebuilt with Spark's precedence (the same node when
    its grouping is already Spark's)."""
    operands: list[exp.Expression] = []
    ops: list[exp.Expression] = []
    node = root
    while type(node) in _LEVEL:
        ops.append(node)
        operands.append(node.expression)
        node = node.this
    operands.append(node)
    operands.reverse()
    ops.reverse()
    levels = [_LEVEL[type(o)] for o in ops]
    if all(levels[i] >= levels[i + 1] for i in range(len(levels) - 1)):
        return root  # never looser then tighter: left-deep is Spark's grouping

    def climb(lo: int, hi: int, level: int) -> exp.Expression:
        # operands[lo..hi] joined by ops[lo..hi-1], the loosest operator (last of them) on top
        if lo == hi:
            return operands[lo]
        loosest = min(levels[lo:hi])
        split = max(i for i in range(lo, hi) if levels[i] == loosest)
        op = ops[split]
        new = type(op)(this=climb(lo, split, loosest), expression=climb(split + 1, hi, loosest))
        if op.meta:
            new.meta.update({k: v for k, v in op.meta.items() if k == UNSIGNED_SHIFT})
        return new

    for x in operands:
        x.pop() if x.parent is not None else None
    return climb(0, len(operands) - 1, -1)
