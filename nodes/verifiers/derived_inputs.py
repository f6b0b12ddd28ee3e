"""Calls to try drafted code on, read from the drafts (for rubrics with few tests).

Calls of their shared top-level function in docstrings or comments (`pluck([4, 2, 3])`),
values given for its parameters (`arr = [4, 2, 3]`, `Input: 12`), else typical values of
the parameter's type.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from critic_loop.nodes.verifiers.checks.structured import extract_code

MAX_LITERAL_CHARS = 2000  # a longer literal (as source) is not read
SCALAR = re.compile(r"""-?\d+(?:\.\d+)?(?![\w.])|"[^"\n]*"|'[^'\n]*'|True\b|False\b""")
TYPICAL: dict[str, list[Any]] = {  # values for a parameter known only by its type hint
    "int": [0, 1, 2, 5, 9],
    "float": [0.0, 2.5, -1.5, 10.0],
    "str": ["", "a", "abc", "Hello World"],
    "bool": [True, False],
    "list": [[], [1], [3, 1, 2, 2], [-1, 0, 5, 10]],
}
UNREADABLE = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def _closing(text: str, start: int) -> int:
    # the end of the bracketed text opening at `start`, quotes skipped (0: it never closes)
    depth, quote = 0, ""
    for index, char in enumerate(text[start : start + MAX_LITERAL_CHARS], start):
        if quote or char in "'\"":
            quote = "" if char == quote else quote or char
        elif char in "([{)]}":
            depth += 1 if char in "([{" else -1
            if depth == 0:
                return index + 1
    return 0


def _literals(text: str, start: int, call: bool = False) -> list[Any]:
    """Read the literal at `start` (a call's literal arguments); [] if there is none."""
    end = _closing(text, start) if call or text[start : start + 1] in "([{" else 0
    scalar = None if end else SCALAR.match(text, start)
    source = text[start:end] if end else scalar.group(0) if scalar else ""
    try:
        node = ast.parse(source, mode="eval").body if source else None
        parts = node.args if call and isinstance(node, ast.Call) and not node.keywords else [node]
        return [ast.literal_eval(part) for part in parts if part is not None]
    except UNREADABLE:
        return []


def entry_points(drafts: Sequence[str]) -> dict[str, ast.FunctionDef]:
    """Return the top-level functions every parsable draft defines and none of its others calls."""
    shared: dict[str, ast.FunctionDef] | None = None
    for draft in drafts:
        try:
            tree = ast.parse(extract_code(draft))
        except UNREADABLE:
            continue
        defined = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        called = {
            node.func.id
            for function in defined.values()
            for node in ast.walk(function)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id != function.name
        }  # fmt: skip
        roots = {name: f for name, f in defined.items() if name not in called}
        shared = roots if shared is None else {n: f for n, f in shared.items() if n in roots}
    return shared or {}


def _used_as(parameter: str, function: ast.FunctionDef) -> str:
    """Guess a parameter's type from how the function uses it: "str", "int", "list" or ""."""
    for node in ast.walk(function):
        named = [n for n in ast.iter_child_nodes(node) if getattr(n, "id", None) == parameter]
        if isinstance(node, ast.Attribute) and named and hasattr(str, node.attr):
            return "str" if not hasattr(list, node.attr) else "list"
        if named and isinstance(node, ast.BinOp | ast.AugAssign | ast.Compare):
            numbers = [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.Constant)]
            if any(type(n.value) is int for n in numbers) or isinstance(
                getattr(node, "op", None), ast.Mod
            ):
                return "int"
        if named and isinstance(node, ast.Subscript | ast.For | ast.comprehension):
            return "list"
        if named and isinstance(node, ast.Call) and getattr(node.func, "id", "") == "range":
            return "int"
    return ""


def _given(parameter: ast.arg, text: str, function: ast.FunctionDef, alone: bool) -> list[Any]:
    # values written as `parameter = value` or `parameter: value` (`Input: value` for the only one)
    names = re.escape(parameter.arg) + ("|input" if alone else "")
    found = [
        _literals(text, match.end())
        for match in re.finditer(rf"(?<![\w.])(?:{names})\s*[:=]\s*", text, re.IGNORECASE)
    ]
    hint = ast.unparse(parameter.annotation).lower() if parameter.annotation else ""
    kind = hint.split("[")[0] or _used_as(parameter.arg, function)
    return [value for values in found for value in values] or TYPICAL.get(kind, [])


def documented_calls(drafts: Sequence[str]) -> list[tuple[str, tuple[Any, ...]]]:
    """Return (function, arguments) the drafts give for their shared entry functions."""
    text = "\n".join(drafts)
    calls: list[tuple[str, tuple[Any, ...]]] = []
    for name, function in entry_points(drafts).items():
        parameters = [*function.args.posonlyargs, *function.args.args]
        for match in re.finditer(rf"(?<![\w.]){re.escape(name)}(?=\()", text):
            written = tuple(_literals(text, match.start(), call=True))
            calls += [(name, written)] if written and len(written) == len(parameters) else []
        alone = len(parameters) == 1
        given = [_given(parameter, text, function, alone) for parameter in parameters]
        calls += [(name, args) for args in zip(*given, strict=False)] if parameters else []
    return calls
