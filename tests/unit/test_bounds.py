"""Bounded evidence, hints and feedback, and bounded nesting of input."""

import json

import pytest

from critic_loop.nodes.loop.feedback import worker_feedback
from critic_loop.nodes.verifiers.checks.structured import check_json, check_json_schema
from critic_loop.sandbox.report import (
    CollectedTest,
    SuiteReport,
    TestOutcome,
    judge,
)
from critic_loop.state.bounds import check_depth, cut, depth_of, share, text_depth
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Critique
from critic_loop.state.rubric import Criterion, MatchesJsonSchema
from critic_loop.state.verdict import CheckResult, CriterionResult, Verdict


@pytest.fixture
def limits(monkeypatch):
    """Set operator limits through the environment, as an operator does."""

    def set_limits(**values: int) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"CRITIC_LOOP_{name.upper()}", str(value))
        operator_settings.cache_clear()

    yield set_limits
    operator_settings.cache_clear()


def test_a_cut_text_keeps_its_start_and_says_how_much_was_left_out() -> None:
    text = "x" * 10_000
    kept = cut(text, 2_000)
    assert len(kept) == 2_000
    left_out = 10_000 - kept.index(" [...")
    assert kept.endswith(f" [... {left_out} characters left out]")
    assert cut("short", 2_000) == "short"
    assert cut(kept, 2_000) == kept  # cutting again changes nothing


def test_check_results_are_cut_at_the_operators_limits(limits) -> None:
    limits(max_evidence_chars=500, max_hint_chars=200)
    result = CheckResult(passed=False, evidence="e" * 6_200_000, hint="h" * 5_000)
    assert len(result.evidence) == 500 and "characters left out]" in result.evidence
    assert len(result.hint) == 200
    graded = CriterionResult(criterion_id="c", passed=False, evidence="e" * 900, hint="h" * 900)
    assert (len(graded.evidence), len(graded.hint)) == (500, 200)


def test_a_critique_as_a_whole_is_bounded(limits) -> None:
    limits(max_critique_chars=3_000)
    results = [
        CriterionResult(criterion_id=f"c{i}", passed=False, evidence="e" * 2_000, hint="h" * 600)
        for i in range(20)
    ]
    critique = Critique(
        round=1,
        verdict=Verdict(results=results, feedback="f" * 2_000),
        rejected=["r" * 2_000] * 5,
    )
    verdict = critique.verdict
    assert verdict is not None
    texts = [r.evidence for r in verdict.results] + [r.hint for r in verdict.results]
    texts += [verdict.feedback, *critique.rejected]
    assert sum(map(len, texts)) <= 3_000
    assert all(text.endswith("characters left out]") for text in texts)
    stored = json.dumps(critique.model_dump(mode="json"))
    assert Critique.model_validate_json(stored) == critique  # reading it back keeps it


def test_share_caps_the_longest_first() -> None:
    assert share([10, 20, 30], 100) is None
    assert share([10, 20, 300], 100) == 70
    assert share([500, 500], 100) == 50


def test_worker_feedback_items_are_bounded(limits) -> None:
    limits(max_hint_chars=150, max_feedback_chars=300)
    rubric = [Criterion(id="tone", text="It is friendly.")]
    verdict = Verdict(
        results=[CriterionResult(criterion_id="tone", passed=False, evidence="x", hint="y" * 999)],
        feedback="z" * 999,
    )
    note = worker_feedback(1, 1, verdict, rubric)
    assert note.hints[0] == "Make sure your text is friendly."  # the criterion, told
    assert len(note.hints[1]) == 150 and len(note.summary) == 300


def test_sixteen_thousand_failing_cases_give_evidence_within_the_limit() -> None:
    """What a report naming 16,000 failing cases gives: evidence of bounded size."""
    collected = [CollectedTest(f"test_x.py::test_case[{i}]", "test_case") for i in range(16_000)]
    report = SuiteReport(
        module_error=None,
        collected=collected,
        results={
            test.nodeid: TestOutcome(test.nodeid, "failed", f"assert {i} == -1", "")
            for i, test in enumerate(collected)
        },
        exitstatus=1,
    )
    judged = judge(report, "def test_case(): pass", 1)
    assert not judged.passed
    assert judged.evidence.startswith("16000 of 16000 tests failed: test_case[0], test_case[1]")
    assert judged.evidence.endswith("and 15980 more.")
    result = CheckResult(passed=False, evidence=judged.evidence + "\n" + "o" * 100_000)
    assert len(result.evidence) <= operator_settings().max_evidence_chars
    assert len(judged.hint) <= operator_settings().max_hint_chars


def test_depth_is_measured_without_recursion() -> None:
    deep: object = []
    for _ in range(100_000):
        deep = [deep]
    assert depth_of(deep, 64) == 65  # it stops counting past the limit
    assert depth_of({"a": [1, {"b": []}]}, 64) == 4
    assert text_depth("[" * 100_000 + "]" * 100_000, 64) == 65
    assert text_depth('{"a": "[[[[[[[[[[[[["}', 3) == 1  # brackets in strings do not count
    with pytest.raises(ValueError, match="nested more than 64 levels deep"):
        check_depth(deep)


def test_a_deep_json_schema_is_refused_and_a_deep_json_draft_fails_its_check() -> None:
    schema: dict = {"type": "object"}
    for _ in range(1_000):
        schema = {"not": schema}
    with pytest.raises(ValueError, match="the JSON Schema is nested more than 64 levels deep"):
        MatchesJsonSchema(id="s", kind="json_schema", schema=schema)
    deep_draft = "[" * 100_000 + "]" * 100_000
    for result in (
        check_json(deep_draft),
        check_json_schema(MatchesJsonSchema(id="s", kind="json_schema", schema={}), deep_draft),
    ):
        assert not result.passed
        assert result.evidence == "The JSON is nested more than 64 levels deep (the most allowed)."
