"""Safe arithmetic expressions over shape parameters (roofline flops and bytes)."""

from __future__ import annotations

import ast
import math
import operator

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
FUNCTIONS = {
    "min": min,
    "max": max,
    "ceil": math.ceil,
    "floor": math.floor,
    "log2": math.log2,
    "sqrt": math.sqrt,
    "cdiv": lambda a, b: -(-a // b),
}


class ExpressionError(ValueError):
    """The expression is not valid arithmetic over the known names."""


def parse(text: str | int | float) -> ast.Expression:
    """Parse and check an expression; raise ExpressionError naming what is wrong."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ExpressionError(f"expected an arithmetic expression, got {type(text).__name__}")
    try:
        tree = ast.parse(str(text), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"not an arithmetic expression: {text!r} ({exc.msg})") from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Expression, ast.Load, ast.Name, ast.BinOp, ast.UnaryOp)):
            continue
        if isinstance(node, tuple(_BINARY) + tuple(_UNARY)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id not in FUNCTIONS:
                raise ExpressionError(f"unknown function {node.func.id!r} in {text!r}")
            continue
        raise ExpressionError(f"{type(node).__name__} is not allowed in {text!r}")
    return tree


def names(text: str | int | float) -> set[str]:
    """Variable names an expression reads (function names excluded)."""
    tree = parse(text)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - called


def evaluate(text: str | int | float, values: dict[str, float]) -> float:
    """Evaluate an expression with the given variable values."""
    tree = parse(text)

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise ExpressionError(f"unknown name {node.id!r} in {text!r}")
            return values[node.id]
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](ev(node.operand))
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        return FUNCTIONS[node.func.id](*(ev(a) for a in node.args))

    try:
        return ev(tree)
    except (ZeroDivisionError, OverflowError, TypeError, ValueError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"cannot evaluate {text!r}: {exc}") from None
