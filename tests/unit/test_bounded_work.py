"""No input makes validation, matching or storage unbounded; every refusal says why."""

import re
import time

import pytest
import regex
from pydantic import ValidationError

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.verifiers.checks.structured import check_json_schema
from critic_loop.nodes.verifiers.checks.text import check_regex
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import MatchesJsonSchema, Regex
from critic_loop.state.run_input import LoopInput
from tests.support.contexts import scripted_context
from tests.support.rubrics import TASK
from tests.support.verdicts import graded

WORDS = [{"id": "w", "kind": "word_count", "max": 50}]


@pytest.fixture
def operator(monkeypatch):
    """Set operator settings for one test."""

    def set_limits(**values: object) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"CRITIC_LOOP_{name.upper()}", str(value))
        operator_settings.cache_clear()

    yield set_limits
    operator_settings.cache_clear()


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a|a)+$", r"(x+x+)+y"])
def test_a_backtracking_pattern_ends_within_the_limit_as_a_failure(operator, pattern) -> None:
    operator(regex_timeout_seconds=0.5)
    criterion = Regex(id="r", kind="regex", pattern=pattern)
    started = time.monotonic()
    result = check_regex(criterion, "a" * 40 + "!" + "x" * 5000)
    # unbounded, this match backtracks for hours; the margin over the 0.5 s limit absorbs
    # a loaded 2-core machine (1.5 s flaked at load 8)
    assert time.monotonic() - started < 5
    assert not result.passed
    assert result.evidence


def test_ten_thousand_criteria_are_refused_at_once() -> None:
    rubric = [{"id": f"c{i}", "kind": "regex", "pattern": "(a|a)+$" * 10} for i in range(10_000)]
    started = time.monotonic()
    with pytest.raises(
        ValidationError, match="the rubric has 10000 criteria; the most allowed is 100"
    ):
        LoopInput.model_validate({"task": TASK, "rubric": rubric})
    assert time.monotonic() - started < 2


def _contradiction_rubric(n: int) -> list[dict[str, object]]:
    return [
        *({"id": f"w{i}", "kind": "word_count", "min": 1, "max": 100 + i} for i in range(n)),
        *(
            {"id": f"p{i}", "kind": "regex", "pattern": f"word{i}", "must_match": i % 2 == 0}
            for i in range(n)
        ),
        *({"id": f"h{i}", "kind": "contains", "phrases": [f"phrase {i}"]} for i in range(n)),
    ]


def _validation_seconds(rubric: list[dict[str, object]]) -> float:
    best = float("inf")
    for _ in range(3):  # the fastest of three: what the code costs, not what the machine did
        regex.purge()  # else a small rubric's patterns come from the cache, a large one's not
        started = time.perf_counter()
        LoopInput.model_validate({"task": TASK, "rubric": rubric})
        best = min(best, time.perf_counter() - started)
    return best


def test_the_contradiction_check_is_near_linear(operator) -> None:
    operator(max_criteria=20_000)
    small, large = _contradiction_rubric(300), _contradiction_rubric(3000)
    ratio = _validation_seconds(large) / _validation_seconds(small)
    # ten times the criteria: about 10x when linear, over 20x when every pair is compared. A
    # ratio, not a time limit, so a loaded machine does not fail it (2 s flaked at load 8)
    assert ratio < 20


def test_an_evil_pattern_cannot_hang_the_contradiction_check() -> None:
    rubric = [
        {"id": "says", "kind": "contains", "phrases": ["x" * 5000], "case_sensitive": True},
        {"id": "never", "kind": "regex", "pattern": "(x+x+)+y", "must_match": False},
    ]
    started = time.monotonic()
    LoopInput.model_validate({"task": TASK, "rubric": rubric})
    # unbounded, this match takes longer than the universe has existed; the regex time
    # limit (1 s) ends it. The bound is loose so a loaded machine does not fail it.
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(
    ("task", "rubric", "message"),
    [
        ("x" * 10_000_000, WORDS, "the task is 10000000 characters; the most allowed is 100000"),
        ("Say \ud800 hello.", WORDS, "the task contains an invalid character (a lone surrogate)"),
        (
            TASK,
            [{"id": "r", "kind": "regex", "pattern": "a" * 10_000_000}],
            "the pattern is 10000000 characters",
        ),
        (
            TASK,
            [{"id": "w", "kind": "word_count", "max": 10**100}],
            "less than or equal to 1000000000",
        ),
        (
            TASK,
            [{"id": "j", "kind": "json_schema", "schema": {"const": 10**30}}],
            "integer too large",
        ),
        (
            TASK,
            [{"id": "j", "kind": "json_schema", "schema": {"$ref": "https://example.com/s.json"}}],
            "nothing is fetched",
        ),
        (
            TASK,
            [{"id": "j", "kind": "json_schema", "schema": {"$ref": "#/$defs/missing"}}],
            "cannot resolve '#/$defs/missing'",
        ),
        (TASK, [{"id": "t", "text": "x\udfff"}], "unable to parse raw data as a unicode string"),
    ],
    ids=[
        "huge-task",
        "surrogate",
        "huge-pattern",
        "huge-int",
        "huge-int-in-schema",
        "remote-ref",
        "missing-ref",
        "surrogate-in-criterion",
    ],
)
def test_unusable_input_is_refused_saying_why(task, rubric, message) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        LoopInput.model_validate({"task": task, "rubric": rubric})


def test_local_schema_references_resolve_and_are_checked() -> None:
    schema = {
        "$defs": {"n": {"type": "integer"}},
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/n"}},
    }
    criterion = MatchesJsonSchema(id="j", kind="json_schema", schema=schema)
    assert check_json_schema(criterion, '{"a": 1}').passed
    assert not check_json_schema(criterion, '{"a": "one"}').passed


def test_an_oversized_draft_fails_its_round_and_is_kept_cut(models, operator) -> None:
    operator(max_draft_chars=1000)
    models.script("worker", "word " * 1000, "short draft")
    models.script("critic", graded([{"id": "c"}]))
    out = build_graph().invoke(
        {"task": TASK, "rubric": [{"id": "c", "text": "It is short."}]},
        context=scripted_context(max_iterations=2),
    )
    first, second = out["drafts"]
    assert (len(first["text"]), first["full_length"]) == (1000, 5000)
    [result] = out["critiques"][0]["verdict"]["results"]
    assert result["evidence"] == "The draft has 5000 characters; the most allowed is 1000."
    assert models["critic"].calls == 1  # the judge never saw the oversized draft
    assert out["outcome"] == "passed" and out["final"] == "short draft"
