"""Checks on structure: valid JSON, JSON matching a schema, valid Python syntax."""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tokenize
from collections.abc import Sequence
from typing import Any, cast

from jsonschema import ValidationError, validators
from referencing import Registry
from referencing.exceptions import Unresolvable

from critic_loop.state.bounds import text_depth
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import PYTHON_FEATURES, MatchesJsonSchema, PythonFeature
from critic_loop.state.verdict import CheckResult

FENCED_CODE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)
PYTHON = frozenset({"python", "py", "python3"})
MAX_SCHEMA_ERRORS = 10  # the hint names this many, and counts the rest
TYPE_NAMES = {"array": "a list", "boolean": "true or false", "integer": "an integer"}
TYPE_NAMES |= {"null": "null", "object": "an object"}
RULES = {  # what a schema keyword asks of a value, in words (`{}`: the keyword's value)
    "type": "must be {}",
    "enum": "must be one of {}",
    "const": "must be {}",
    "minimum": "must be at least {}",
    "maximum": "must be at most {}",
    "minLength": "must be at least {} characters long",
    "maxLength": "must be at most {} characters long",
    "minItems": "must hold at least {} items",
    "maxItems": "must hold at most {} items",
    "pattern": "must match the regular expression {}",
}


def extract_code(draft: str, languages: frozenset[str] = PYTHON) -> str:
    """Return the draft's first fenced block in `languages`, else its first, else the draft."""
    blocks = FENCED_CODE.findall(draft)
    for language, body in blocks:
        if language.lower() in languages:
            return str(body)
    return str(blocks[0][1]) if blocks else draft


def _parse_json(draft: str) -> tuple[Any, CheckResult | None]:
    text = extract_code(draft, frozenset({"json"}))  # the JSON in a fence, as code is read
    limit = operator_settings().max_nesting_depth
    if text_depth(text, limit) > limit:
        return None, CheckResult(
            passed=False,
            evidence=f"The JSON is nested more than {limit} levels deep (the most allowed).",
            hint="Flatten the JSON: nest fewer lists and objects inside each other.",
        )
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        said = f"{error.msg} at line {error.lineno}, column {error.colno}"
    except (ValueError, RecursionError) as error:  # huge numbers, absurd nesting
        said = str(error)
    return None, CheckResult(
        passed=False,
        evidence=f"Not valid JSON: {said}.",
        hint=f"Reply with one valid JSON document and no text around it ({said}).",
    )


def check_json(draft: str) -> CheckResult:
    """Check that the draft parses as JSON."""
    _, failure = _parse_json(draft)
    return failure or CheckResult(passed=True, evidence="The draft is valid JSON.")


def _place(path: Sequence[Any]) -> str:  # "the value at servers[0].port"
    spelled = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
    return f"the value at {spelled.removeprefix('.')}" if path else "the document"


def _worded(value: Any, keyword: str) -> str:
    if keyword == "type":
        names = value if isinstance(value, list) else [value]
        return " or ".join(TYPE_NAMES.get(name, f"a {name}") for name in names)
    if keyword == "enum":
        return ", ".join(json.dumps(item) for item in value)
    return json.dumps(value) if keyword in {"const", "pattern"} else str(value)


def _described(error: ValidationError) -> list[str]:
    """Say what the document must change, in sentences (not shaped like JSON values)."""
    path, keyword, instance = list(error.path), str(error.validator), error.instance
    value, schema = cast(Any, error.validator_value), cast(dict[str, Any], error.schema)
    if keyword == "required" and isinstance(instance, dict):
        return [f"{_place([*path, name])} is missing" for name in value if name not in instance]
    if keyword == "additionalProperties" and isinstance(instance, dict):
        named, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
        extra = [
            k for k in instance if k not in named and not any(re.search(p, k) for p in patterns)
        ]
        return [f"{_place([*path, key])} is not allowed here: remove it" for key in extra]
    rule = RULES.get(keyword, f"must meet the schema's {keyword} of {{}}")
    return [f"{_place(path)} {rule.format(_worded(value, keyword))}"]


def check_json_schema(criterion: MatchesJsonSchema, draft: str) -> CheckResult:
    """Check that the draft is JSON valid against the criterion's schema."""
    document, failure = _parse_json(draft)
    if failure:
        return failure
    schema = criterion.json_schema
    # an empty registry: a $ref is resolved within the schema, never fetched
    validator = validators.validator_for(schema)(schema, registry=Registry())
    try:
        errors = sorted(
            validator.iter_errors(document), key=lambda error: list(map(str, error.path))
        )
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
    described = list(dict.fromkeys(sentence for error in errors for sentence in _described(error)))
    more = len(described) - MAX_SCHEMA_ERRORS
    listed = "; ".join(described[:MAX_SCHEMA_ERRORS]) + (f"; and {more} more" if more > 0 else "")
    return CheckResult(
        passed=False,
        evidence=f"The JSON does not match the schema: {listed}.",
        hint=listed[0].upper() + listed[1:] + ".",
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


def _features(tree: ast.Module, code: str) -> dict[str, int]:
    # how many of each feature the code has
    nodes = list(ast.walk(tree))
    functions = [n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    classes = [n for n in nodes if isinstance(n, ast.ClassDef)]
    calls = [n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    imported = [a.name for n in nodes if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module or "" for n in nodes if isinstance(n, ast.ImportFrom) and not n.level]
    hinted = [a for f in functions for a in (*f.args.args, *f.args.kwonlyargs) if a.annotation]
    first = functions[0] if functions else None
    return {
        "docstring": sum(ast.get_docstring(n) is not None for n in [tree, *functions, *classes]),
        "type_hints": len(hinted) + sum(f.returns is not None for f in functions),
        "loop": sum(isinstance(n, ast.For | ast.AsyncFor | ast.While) for n in nodes),
        "recursion": sum(f.name in calls for f in functions),
        "print": sum(  # a function's own prints, not a usage example's
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
            for scope in list[ast.AST](functions) or [tree]
            for n in ast.walk(scope)
        ),
        "return": sum(isinstance(n, ast.Return) and n.value is not None for n in nodes),
        "comment": sum(
            t.type == tokenize.COMMENT for t in tokenize.generate_tokens(io.StringIO(code).readline)
        ),
        "f_string": sum(isinstance(n, ast.JoinedStr) for n in nodes),
        "import": len(imported),
        "stdlib_only": all(m.split(".")[0] in sys.stdlib_module_names for m in imported),
        "parameters": len(first.args.args) + len(first.args.kwonlyargs) if first else 0,
        "methods": sum(isinstance(m, ast.FunctionDef) for m in classes[0].body) if classes else 0,
    }


def check_python_feature(criterion: PythonFeature, draft: str) -> CheckResult:
    """Find a feature in the drafted code's syntax tree (its fenced block, if any)."""
    code = extract_code(draft)
    try:
        found = _features(ast.parse(code), code)[criterion.feature]
    except SyntaxError as error:
        return CheckResult(
            passed=False,
            evidence=f"The code does not parse as Python ({error.msg} at line {error.lineno}).",
            hint=f"Fix the syntax error at line {error.lineno} ({error.msg}).",
        )
    what = PYTHON_FEATURES[criterion.feature]
    if criterion.count is not None:
        passed, said = found == criterion.count, f"{found} of {what}"
    else:
        passed = bool(found) == criterion.present
        said = f"{what}" if found else f"no {what}"
    wanted = criterion.describe().rstrip(".")
    return CheckResult(
        passed=passed,
        evidence=f"The code has {said}.",
        hint="" if passed else f"Change the code so that: {wanted[:1].lower() + wanted[1:]}.",
    )
