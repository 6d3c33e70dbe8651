"""The two agent tools τ²'s airline and retail domains share: a calculator and the hand-over to a human agent.

``calculate`` evaluates arithmetic only (numbers, ``+ - * /``, parentheses), walking the parsed expression itself:
nothing the agent writes is ever executed. The answer is rounded to two decimals, as τ² answers.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.toolbook import action, lookup, string

ALLOWED = frozenset("0123456789+-*/(). ")
MAX_DIGITS = 400
"""Operands and results beyond this many digits are refused: a power tower would otherwise hang the episode."""
TRANSFERRED = "Transfer successful"

_BINARY: MappingProxyType[type[ast.operator], Callable[[Any, Any], Any]] = MappingProxyType(
    {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv,
        ast.Pow: operator.pow,
    }
)
_UNARY: MappingProxyType[type[ast.unaryop], Callable[[Any], Any]] = MappingProxyType(
    {ast.UAdd: operator.pos, ast.USub: operator.neg}
)


def _refused(message: str) -> ToolError:
    return ToolError("invalid_arguments", "invalid_expression", message)


def _bounded(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_DIGITS * 4:
        raise _refused("The number is too large")
    if isinstance(value, complex):
        raise _refused("The result is not a real number")
    return value


def _value(node: ast.AST, depth: int = 0) -> Any:
    if depth > 200:
        raise _refused("The expression is nested too deeply")
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, depth + 1), _value(node.right, depth + 1)
        if isinstance(node.op, ast.Pow) and isinstance(right, int) and abs(right) > MAX_DIGITS * 4:
            raise _refused("The exponent is too large")
        return _bounded(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _bounded(_UNARY[type(node.op)](_value(node.operand, depth + 1)))
    raise _refused("Only numbers, + - * /, and parentheses are allowed")


@lookup(
    "Calculate the result of an arithmetic expression.",
    expression=string("The expression, such as '2 + 2': numbers, + - * /, parentheses and spaces."),
)
def calculate(state: object, expression: str) -> Any:
    if not set(expression) <= ALLOWED:
        raise _refused("Invalid characters in the expression")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
        return str(round(float(_value(tree.body)), 2))
    except (SyntaxError, ValueError, RecursionError) as error:
        raise _refused(f"Invalid expression: {error}") from None
    except (ArithmeticError, OverflowError) as error:
        raise _refused(f"Cannot evaluate the expression: {error}") from None


@action(
    "Transfer the user to a human agent, with a summary of the issue. Only when the user asks for a human agent, or "
    "when the policy and the tools cannot solve the issue.",
    summary=string("A summary of the user's issue."),
)
def transfer_to_human_agents(state: object, summary: str) -> Any:
    return TRANSFERRED
