"""Checks on structure: valid JSON, JSON matching a schema, valid Python syntax."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from jsonschema import validators
from referencing import Registry
from referencing.exceptions import Unresolvable

from critic_loop.state.bounds import text_depth
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import MatchesJsonSchema
from critic_loop.state.verdict import CheckResult

FENCED_CODE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)


def extract_code(draft: str) -> str:
    """Return the draft's first fenced code block (Python first), else the draft itself."""
    blocks = FENCED_CODE.findall(draft)
    for language, body in blocks:
        if language.lower() in {"python", "py", "python3"}:
            return str(body)
    return str(blocks[0][1]) if blocks else draft


def _parse_json(draft: str) -> tuple[Any, CheckResult | None]:
    fenced = draft.lstrip().startswith("```")
    hint = "Reply with the JSON document only" + (
        ", without Markdown code fences." if fenced else ", with no text around it."
    )
    limit = operator_settings().max_nesting_depth
    if text_depth(draft, limit) > limit:
        return None, CheckResult(
            passed=False,
            evidence=f"The JSON is nested more than {limit} levels deep (the most allowed).",
            hint="Flatten the JSON: nest fewer lists and objects inside each other.",
        )
    try:
        return json.loads(draft), None
    except json.JSONDecodeError as error:
        where = f" at line {error.lineno}, column {error.colno}"
        return None, CheckResult(
            passed=False, evidence=f"Not valid JSON: {error.msg}{where}.", hint=hint
        )
    except (ValueError, RecursionError) as error:  # huge numbers, absurd nesting
        return None, CheckResult(passed=False, evidence=f"Not usable JSON: {error}.", hint=hint)


def check_json(draft: str) -> CheckResult:
    """Check that the draft parses as JSON."""
    _, failure = _parse_json(draft)
    return failure or CheckResult(passed=True, evidence="The draft is valid JSON.")


def check_json_schema(criterion: MatchesJsonSchema, draft: str) -> CheckResult:
    """Check that the draft is JSON valid against the criterion's schema."""
    document, failure = _parse_json(draft)
    if failure:
        return failure
    schema = criterion.json_schema
    # an empty registry: a $ref is resolved within the schema, never fetched
    validator = validators.validator_for(schema)(schema, registry=Registry())
    try:
        errors = sorted(validator.iter_errors(document), key=lambda error: list(error.path))
    except RecursionError:
        return CheckResult(
            passed=False, evidence="The JSON is nested too deeply to check.", hint="Flatten it."
        )
    except Unresolvable as error:
        return CheckResult(
            passed=False,
            terminal=True,
            evidence=f"The schema cannot be applied: its $ref {error} does not resolve.",
        )
    if not errors:
        return CheckResult(passed=True, evidence="The JSON matches the schema.")
    described = [
        f"at {'/'.join(map(str, error.path)) or '(root)'}: {error.message}" for error in errors[:5]
    ]
    return CheckResult(
        passed=False,
        evidence=f"{len(errors)} schema error(s): " + "; ".join(described),
        hint="Fix the JSON " + described[0] + ".",
    )


def check_python_syntax(draft: str) -> CheckResult:
    """Check that the draft's code (its fenced block, if any) parses as Python."""
    code = extract_code(draft)
    try:
        ast.parse(code)
    except SyntaxError as error:
        line = (error.text or "").strip()
        return CheckResult(
            passed=False,
            evidence=f"SyntaxError: {error.msg} at line {error.lineno}: {line!r}",
            hint=f"Fix the syntax error at line {error.lineno} ({error.msg}).",
        )
    return CheckResult(passed=True, evidence="The code parses as Python.")
