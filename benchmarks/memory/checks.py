"""The house checks of the memory benchmark that no built-in check expresses.

Each is a critic-loop `python` check: it takes the draft and returns (passed, evidence,
hint). Its hint is written as a team would write it for its own convention, and it is all
the worker ever learns of the requirement, in the round after it failed.
"""

from __future__ import annotations

import ast
import re

CELSIUS = re.compile(r"-?\d+(?:\.\d+)?\s?°\s?C\b")
FAHRENHEIT = re.compile(r"°\s?F\b|\bfahrenheit\b|\d\s?F\b", re.IGNORECASE)
FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.DOTALL)


def temperatures_in_celsius(draft: str) -> tuple[bool, str, str]:
    """Pass when the draft gives temperatures in °C and none in Fahrenheit."""
    hint = "Give every temperature in degrees Celsius, written like '21 °C'."
    if FAHRENHEIT.search(draft):
        return False, "It gives a temperature in Fahrenheit.", hint
    if not CELSIUS.search(draft):
        return False, "It gives no temperature in degrees Celsius.", hint
    return True, f"It gives {CELSIUS.search(draft).group(0)!r}.", ""  # type: ignore[union-attr]


def _code(draft: str) -> str:
    blocks = FENCE.findall(draft)
    return "\n".join(blocks) if blocks else draft


def docstrings_with_examples(draft: str) -> tuple[bool, str, str]:
    """Pass when every function in the draft has a docstring with a '>>>' example."""
    hint = "Give every function a docstring with a usage example on a line starting with '>>>'."
    try:
        tree = ast.parse(_code(draft))
    except SyntaxError as error:
        return False, f"The code does not parse: {error.msg} (line {error.lineno}).", ""
    functions = [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    if not functions:
        return False, "It defines no function.", ""
    lacking = [node.name for node in functions if ">>>" not in (ast.get_docstring(node) or "")]
    if lacking:
        return False, f"No '>>>' example in the docstring of {', '.join(lacking)}.", hint
    return True, "Every function's docstring has a '>>>' example.", ""
