"""Calls to try drafted code on, read from the drafts: what their docstrings and hints show.

Where a rubric has few tests, candidates are compared on inputs the drafts themselves give:
calls of their shared top-level function written in docstrings or comments
(`pluck([4, 2, 3])`), values given for its parameters (`arr = [4, 2, 3]`, `Input: 12`), and,
for parameters with a type hint and no such value, a few values of that type.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Sequence
from typing import Any

from critic_loop.nodes.verifiers.checks.structured import extract_code

MAX_LITERAL_CHARS = 2000  # a longer literal (as source) is not read
SCALAR = re.compile(r"""-?\d+(?:\.\d+)?(?![\w.])|"[^"\n]*"|'[^'\n]*'|True\b|False\b""")
TYPICAL: dict[str, list[Any]] = {  # values for a parameter known only by its type hint
    "int": [0, 1, 7, 12, -3],
    "float": [0.0, 2.5, -1.5, 10.0],
    "str": ["", "a", "abc", "Hello World"],
    "bool": [True, False],
    "list": [[], [1], [3, 1, 2, 2], [-1, 0, 5, 10]],
    "list[str]": [[], ["a"], ["ab", "c", "abc"]],
}


def _bracketed_end(text: str, start: int) -> int | None:
    # the end of the bracketed text opening at `start`, quotes skipped (None: it never closes)
    depth, quote = 0, ""
    for index in range(start, min(len(text), start + MAX_LITERAL_CHARS)):
        char = text[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _literal_at(text: str, start: int) -> tuple[bool, Any]:
    """Read the Python literal starting at `start`: (found, value)."""
    end = _bracketed_end(text, start) if text[start : start + 1] in "([{" else None
    scalar = SCALAR.match(text, start)
    source = text[start:end] if end else scalar.group(0) if scalar else ""
    try:
        return bool(source), ast.literal_eval(source) if source else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def entry_points(drafts: Sequence[str]) -> dict[str, ast.arguments]:
    """Return the top-level functions every draft defines that no other of its functions calls.

    (Drafts whose code does not parse are left out; the signature is the first draft's.)
    """
    shared: dict[str, ast.arguments] | None = None
    for draft in drafts:
        try:
            tree = ast.parse(extract_code(draft))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        defined = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        called = {
            node.func.id
            for function in defined.values()
            for node in ast.walk(function)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id != function.name
        }  # fmt: skip
        roots = {name: f.args for name, f in defined.items() if name not in called}
        shared = roots if shared is None else {n: a for n, a in shared.items() if n in roots}
    return shared or {}


def _written_calls(name: str, text: str) -> list[tuple[Any, ...]]:
    found = []
    for match in re.finditer(rf"(?<![\w.]){re.escape(name)}(?=\()", text):
        end = _bracketed_end(text, match.end())
        try:
            call = ast.parse(text[match.start() : end], mode="eval").body if end else None
            if isinstance(call, ast.Call) and not call.keywords:
                found.append(tuple(ast.literal_eval(arg) for arg in call.args))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
    return found


def _given_values(parameter: str, text: str, alone: bool) -> list[Any]:
    # values written as `parameter = value` or `parameter: value` (`Input: value` for the only one)
    names = rf"{re.escape(parameter)}|input" if alone else re.escape(parameter)
    values = []
    for match in re.finditer(rf"(?<![\w.])(?:{names})\s*[:=]\s*", text, re.IGNORECASE):
        found, value = _literal_at(text, match.end())
        if found:
            values.append(value)
    return values


def _typical(annotation: ast.expr | None) -> list[Any]:
    name = ast.unparse(annotation).replace("List", "list") if annotation is not None else ""
    return TYPICAL.get(name, TYPICAL["list"] if name.startswith("list[") else [])


def documented_calls(drafts: Sequence[str]) -> list[tuple[str, tuple[Any, ...]]]:
    """Return (function, arguments) the drafts give for their shared entry functions."""
    text = "\n".join(drafts)
    calls: list[tuple[str, tuple[Any, ...]]] = []
    for name, signature in entry_points(drafts).items():
        parameters = [*signature.posonlyargs, *signature.args]
        arity = len(parameters)
        written = [args for args in _written_calls(name, text) if len(args) == arity]
        given = [
            _given_values(p.arg, text, arity == 1) or _typical(p.annotation) for p in parameters
        ]
        zipped = list(zip(*given, strict=False)) if arity and all(given) else []
        calls += [(name, args) for args in itertools.chain(written, zipped)]
    return calls
