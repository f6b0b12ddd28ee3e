"""Helpers to declare coding tasks compactly; `build` turns them into coding.jsonl.

A visible or hidden test is either
  (test_name, call_source, expected_source)        -> assert call == expected
  (test_name, call_source, Raises("ValueError"))   -> with pytest.raises(ValueError): call
  a raw string starting with "def test_"            -> copied verbatim
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

TASKS: list[dict[str, str]] = []
"""Every coding task declared so far, in declaration order (the order of coding.jsonl)."""

NAIVE: dict[str, str] = {}
"""A deliberately naive, plausible but wrong solution per task id (naive_solutions.json)."""


@dataclass(frozen=True)
class Raises:
    """An expected exception, by name: the test asserts the call raises it."""

    exception: str


TestItem = tuple[str, str, "str | Raises"] | str
"""One test: (name, call, expected value or Raises), or a verbatim `def test_...` source."""


def _dedent(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def _reflow(text: str) -> str:
    """Join hard-wrapped lines into paragraphs; keep "- " bullets and blank lines."""
    out: list[str] = []
    for raw in _dedent(text).split("\n"):
        line = raw.strip()
        if not line:
            out.append("")
        elif not out or not out[-1] or line.startswith("- "):
            out.append(line)
        else:
            out[-1] += " " + line
    return "\n".join(out)


def _test_module(entry: str, items: list[TestItem]) -> str:
    needs_pytest = any(isinstance(item, tuple) and isinstance(item[2], Raises) for item in items)
    lines = []
    if needs_pytest:
        lines.append("import pytest")
        lines.append("")
    lines.append(f"from solution import {entry}")
    names = set()
    for item in items:
        lines.append("")
        lines.append("")
        if isinstance(item, str):
            body = _dedent(item)
            name = body.split("(", 1)[0].removeprefix("def ").strip()
            lines.append(body)
        else:
            name, call, expected = item
            if isinstance(expected, Raises):
                lines.append(f"def {name}():")
                lines.append(f"    with pytest.raises({expected.exception}):")
                lines.append(f"        {call}")
            else:
                lines.append(f"def {name}():")
                lines.append(f"    assert {call} == {expected}")
        if name in names:
            raise ValueError(f"duplicate test name {name} for {entry}")
        names.add(name)
    return "\n".join(lines) + "\n"


PROMPT_TAIL = (
    "Reply with a single Python code block (```python ... ```) that defines `{entry}`. "
    "Use only the Python standard library, and do not include tests or example usage."
)


def T(  # noqa: D417 - the parameters are the fields of a coding task
    *,
    id: str,
    difficulty: str,
    signature: str,
    desc: str,
    visible: list[TestItem],
    hidden: list[TestItem],
    reference: str,
    naive: str,
    entry: str | None = None,
    note: str | None = None,
) -> None:
    """Declare a coding task: its prompt is built from the signature, desc and visible examples."""
    entry = entry or signature.split("(", 1)[0]
    examples = []
    for item in visible:
        if isinstance(item, str) or isinstance(item[2], Raises):
            raise ValueError(f"{id}: visible tests must be plain equality examples")
        _, call, expected = item
        examples.append(f">>> {call}\n{expected}")
    prompt = (
        f"Write a Python function `{signature}` that {_reflow(desc)}\n\n"
        + "Examples:\n```\n"
        + "\n".join(examples)
        + "\n```\n"
        + (f"{_reflow(note)}\n" if note else "")
        + "\n"
        + PROMPT_TAIL.format(entry=entry)
    )
    TASKS.append(
        {
            "id": id,
            "prompt": prompt,
            "entry_point": entry,
            "visible_tests": _test_module(entry, visible),
            "hidden_tests": _test_module(entry, hidden),
            "reference": _dedent(reference) + "\n",
            "difficulty": difficulty,
        }
    )
    NAIVE[id] = _dedent(naive) + "\n"
