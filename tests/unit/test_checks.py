"""Every built-in deterministic check, passing and failing; Python checks and references."""

import re

import pytest
from pydantic import TypeAdapter, ValidationError

from critic_loop.nodes.verifiers.checks import run_check
from critic_loop.state.references import register_check, resolve_reference
from critic_loop.state.rubric import AnyCriterion, Rubric, dump_rubric
from critic_loop.state.verdict import CheckResult
from tests.support.rubrics import MIXED

CRITERIA = TypeAdapter(AnyCriterion)


def check(spec: dict, draft: str) -> CheckResult:
    criterion = CRITERIA.validate_python({"id": "c", **spec})
    return run_check(criterion, draft)


@pytest.mark.parametrize(
    ("spec", "draft", "passed", "hint"),
    [
        ({"kind": "word_count", "max": 5}, "one two three four five", True, ""),
        (
            {"kind": "word_count", "max": 5},
            "one two three four five six",
            False,
            "Cut it to at most 5 words.",
        ),
        (
            {"kind": "word_count", "min": 4},
            "# Title\n\n- don't stop",
            False,
            "Expand it to at least 4 words.",
        ),  # '#' and '-' are not words; "don't" is one
        ({"kind": "word_count", "min": 2, "max": 4}, "well-known facts, stated", True, ""),
        ({"kind": "char_count", "max": 10}, "short", True, ""),
        ({"kind": "char_count", "min": 10}, "short", False, "Expand it to at least 10 characters."),
        ({"kind": "regex", "pattern": r"\d{4}"}, "founded in 1998", True, ""),
        (
            {"kind": "regex", "pattern": r"\d{4}"},
            "founded long ago",
            False,
            r"Include text that matches /\d{4}/.",
        ),
        (
            {"kind": "regex", "pattern": r"^Order now\.$"},
            "A fine bottle.\nOrder now!",
            False,
            "Add the line 'Order now.' on its own. Near miss: 'Order now!' is there; it must "
            "read exactly 'Order now.'.",
        ),
        (
            {"kind": "regex", "pattern": r"^Order now\.$"},
            "A fine bottle. Order now.",
            False,
            "Add the line 'Order now.' on its own. Near miss: 'Order now.' is there, but not on "
            "a line of its own.",
        ),
        (
            {"kind": "regex", "pattern": r"Order now\."},
            "Buy it today.",
            False,
            "Include 'Order now.'.",
        ),
        ({"kind": "regex", "pattern": "lorem", "must_match": False}, "real text", True, ""),
        (
            {"kind": "regex", "pattern": "LOREM", "must_match": False, "ignore_case": True},
            "some lorem ipsum",
            False,
            "Remove or rewrite the text matching /LOREM/ (first at 'lorem').",
        ),
        (
            {"kind": "contains", "phrases": ["24 hours", "Leak-proof"]},
            "leak-proof, cold 24 hours",
            True,
            "",
        ),
        (
            {"kind": "contains", "phrases": ["24 hours", "Leak-proof"], "case_sensitive": True},
            "leak-proof, cold 24 hours",
            False,
            "Include 'Leak-proof'. Near miss: 'leak-proof,' is there; it must read exactly "
            "'Leak-proof'.",
        ),
        (
            {"kind": "headings", "headings": ["Usage", "Install"]},
            "# Install\ntext\n## usage\n",
            True,
            "",
        ),
        (
            {"kind": "headings", "headings": ["Usage", "Install"]},
            "# Install\nUsage is easy",
            False,
            "Add Markdown headings (lines starting with '#') titled 'Usage'.",
        ),
        ({"kind": "json"}, '{"a": [1, 2]}', True, ""),
        ({"kind": "json"}, 'Here it is:\n```json\n{"a": 1}\n```', True, ""),
        (
            {"kind": "json"},
            '```json\n{"a": 1,}\n```',
            False,
            "Reply with one valid JSON document and no text around it (Expecting property name "
            "enclosed in double quotes at line 1, column 9).",
        ),
        (
            {
                "kind": "json_schema",
                "schema": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"age": {"type": "integer"}},
                },
            },
            '{"name": "Ada", "age": 36}',
            True,
            "",
        ),
        (
            {
                "kind": "json_schema",
                "schema": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"age": {"type": "integer"}},
                },
            },
            '{"age": "old"}',
            False,
            "The value at name is missing; the value at age must be an integer.",
        ),
        ({"kind": "python_syntax"}, "```python\ndef f(x):\n    return x\n```", True, ""),
        (
            {"kind": "python_syntax"},
            "def f(x)\n    return x\n",
            False,
            "Fix the syntax error at line 1 (expected ':').",
        ),
    ],
)
def test_built_in_check(spec, draft, passed, hint) -> None:
    result = check(spec, draft)
    assert result.passed is passed, result
    assert result.hint == hint
    assert result.evidence.strip()


def test_schema_error_evidence_names_every_problem() -> None:
    schema = {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["n"]}
    result = check({"kind": "json_schema", "schema": schema}, '{"age": "x"}')
    assert result.evidence == (
        "The JSON does not match the schema: the value at n is missing; "
        "the value at age must be an integer."
    )


def word_check(draft: str) -> CheckResult:
    words = len(draft.split())
    if words <= 3:
        return CheckResult(passed=True, evidence=f"{words} words")
    return CheckResult(passed=False, evidence=f"{words} words", hint="Use three words at most.")


def tuple_check(draft: str) -> tuple[bool, str, str]:
    return ("TODO" not in draft, "looked for TODO", "Finish the TODO.")


def exploding_check(draft: str) -> bool:
    raise ValueError("cannot parse")


def test_python_callable_and_its_importable_reference() -> None:
    reference = register_check(word_check)
    assert reference == f"{__name__}:word_check"
    assert resolve_reference(reference) is word_check
    assert check({"kind": "python", "function": word_check}, "two words").passed
    failed = check({"kind": "python", "function": reference}, "far too many words here")
    assert (failed.passed, failed.evidence, failed.hint) == (
        False,
        "5 words",
        "Use three words at most.",
    )


def test_python_check_results_may_be_tuples_or_bools() -> None:
    assert check({"kind": "python", "function": tuple_check}, "done").passed
    failed = check({"kind": "python", "function": tuple_check}, "TODO: later")
    assert (failed.passed, failed.hint) == (False, "Finish the TODO.")
    assert check({"kind": "python", "function": "builtins:bool"}, "non-empty").passed


def test_a_check_that_raises_fails_with_evidence() -> None:
    failed = check({"kind": "python", "function": exploding_check}, "draft")
    assert not failed.passed
    assert "raised ValueError: cannot parse" in failed.evidence


def test_a_lambda_gets_a_process_local_reference() -> None:
    reference = register_check(lambda draft: True)
    assert "#" in reference
    assert resolve_reference(reference)("x") is True
    with pytest.raises(LookupError, match="another process"):
        resolve_reference(reference.rsplit("#", 1)[0] + "#dead")


def test_unresolvable_reference_is_a_clear_error() -> None:
    with pytest.raises(LookupError, match="cannot import 'nosuchmodule:check'"):
        resolve_reference("nosuchmodule:check")


def test_mixed_rubric_round_trips_through_json_unchanged() -> None:
    import json

    wire = json.loads(json.dumps(MIXED))
    rubric = TypeAdapter(Rubric).validate_python(wire)
    assert json.loads(json.dumps(dump_rubric(rubric))) == MIXED


@pytest.mark.parametrize(
    ("criterion", "message"),
    [
        ({"kind": "word_count"}, "give min or max words"),
        ({"kind": "word_count", "min": 9, "max": 3}, "min (9) is above max (3)"),
        ({"kind": "regex", "pattern": "(unclosed"}, "invalid regular expression"),
        ({"kind": "json_schema", "schema": {"type": 7}}, "invalid JSON Schema"),
        ({"kind": "tests"}, "exactly one of tests"),
        ({"kind": "tests", "tests": "x", "tests_file": "y.py"}, "exactly one of tests"),
        ({"kind": "contains", "phrases": []}, "at least 1 item"),
        ({"kind": "python", "function": "no_colon"}, "not a 'package.module:function'"),
        ({"kind": "teleport"}, "does not match any of the expected tags"),
        ({"text": ""}, "text"),
    ],
)
def test_bad_criteria_are_refused(criterion, message) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        TypeAdapter(Rubric).validate_python([{"id": "c", **criterion}])


@pytest.mark.parametrize(
    "draft",
    ["1" * 5000, "[" * 100_000 + "]" * 100_000],
    ids=["5000-digit number", "deep nesting"],
)
@pytest.mark.parametrize("kind", ["json", "json_schema"])
def test_pathological_json_fails_the_check_instead_of_crashing(kind, draft) -> None:
    spec = {"kind": kind} if kind == "json" else {"kind": kind, "schema": {"type": "array"}}
    result = check(spec, draft)
    assert not result.passed
    assert result.evidence


def silent_failure(draft: str) -> tuple[bool, str]:
    return False, ""


def terminal_without_evidence(draft: str) -> CheckResult:
    return CheckResult(passed=False, evidence="", terminal=True)


def test_checks_without_evidence_get_some_and_never_crash_the_run(models) -> None:
    from critic_loop.graphs.app import build_graph
    from tests.support.contexts import scripted_context

    models.script("worker", "draft")
    for function, outcome in [
        (silent_failure, "exhausted"),
        (terminal_without_evidence, "infeasible"),
    ]:
        rubric = [{"id": "c", "kind": "python", "function": function}]
        out = build_graph().invoke(
            {"task": "t", "rubric": rubric}, context=scripted_context(max_iterations=1)
        )
        assert out["outcome"] == outcome
        assert out["critiques"][0]["verdict"]["results"][0]["evidence"] == (
            "The check gave no evidence."
        )
        models.script("worker", "draft")


@pytest.mark.parametrize(
    ("language", "draft", "passed"),
    [
        ("fr", "Le train part à huit heures et nous arriverons avant midi.", True),
        ("fr", "The train leaves at eight and we arrive before noon.", False),
        ("es", "¿Dónde está la estación de tren?", True),
        (
            "de",
            "Product Listing for Brown Leather Wallet\n\nDie Geldbörse ist aus echtem Leder "
            "und bietet Platz für acht Karten. Sie kostet 49,90 € und ist sehr robust.",
            False,
        ),
        ("en", "```python\nprint('hola')\n```\nThis prints a greeting.", True),  # code is no prose
    ],
)
def test_a_language_check_reads_the_prose(language: str, draft: str, passed: bool) -> None:
    check = TypeAdapter(AnyCriterion).validate_python(
        {"id": "lang", "kind": "language", "language": language}
    )
    result = run_check(check, draft)
    assert result.passed is passed
    assert result.passed or result.hint.startswith("Write all of it in ")


SLUGIFY = '''import re


def slugify(title: str) -> str:
    """Turn a title into a URL slug.

    Returns:
        The slug.
    """
    # lower case, dashes for runs of other characters
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")

print(slugify("A B"))
'''


@pytest.mark.parametrize(
    ("fields", "draft", "passed"),
    [
        ({"feature": "stdlib_only"}, SLUGIFY, True),
        ({"feature": "stdlib_only"}, "import requests\n\ndef f():\n    return 1\n", False),
        ({"feature": "docstring"}, SLUGIFY, True),
        ({"feature": "type_hints"}, SLUGIFY, True),
        ({"feature": "comment"}, SLUGIFY, True),
        ({"feature": "print"}, SLUGIFY, False),  # the usage example prints, not the function
        ({"feature": "recursion"}, "def f(n):\n    return 1 if n < 2 else n * f(n - 1)\n", True),
        ({"feature": "parameters", "count": 1}, SLUGIFY, True),
        ({"feature": "loop", "present": False}, SLUGIFY, True),
        ({"feature": "loop"}, "def f(:", False),  # no parse: not met, saying why
    ],
)
def test_a_python_feature_check_reads_the_syntax_tree(
    fields: dict, draft: str, passed: bool
) -> None:
    check = TypeAdapter(AnyCriterion).validate_python(
        {"id": "code", "kind": "python_feature", **fields}
    )
    result = run_check(check, draft)
    assert result.passed is passed, result.evidence
