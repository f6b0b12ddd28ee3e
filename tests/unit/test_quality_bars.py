"""Quality bars: must/should criteria with weights, pass thresholds, terminal failures."""

import pytest
from pydantic import ValidationError

from critic_loop import LoopInfeasible, result_of
from critic_loop.graphs.app import build_graph
from critic_loop.state.errors import InvalidInput
from tests.support.contexts import scripted_context
from tests.support.verdicts import graded

RUBRIC = [
    {"id": "accurate", "text": "Every figure in it matches the source table."},
    {"id": "cited", "text": "It names the source of every figure."},
    {
        "id": "plain",
        "text": "It avoids jargon a newcomer would not know.",
        "severity": "should",
        "weight": 0.5,
    },
    {"id": "short", "text": "It fits in one paragraph.", "severity": "should", "weight": 0.5},
]
TASK = "Summarize the quarterly sales table for the newsletter."


context = scripted_context


def run(models, *, rubric=RUBRIC, **overrides):
    return build_graph().invoke({"task": TASK, "rubric": rubric}, context=context(**overrides))


def test_a_failing_should_criterion_passes_under_a_lower_threshold(models) -> None:
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC, {"plain": "Explain 'YoY'."}))
    out = run(models, pass_threshold=0.8)  # weighted score 2.5 / 3 = 0.83
    assert out["outcome"] == "passed"
    verdict = out["critiques"][0]["verdict"]
    assert verdict["score"] == pytest.approx(2.5 / 3)
    assert verdict["passed"] is True and verdict["missed"] == []
    # a pass does not hide what a should criterion still misses
    assert [item["criterion_id"] for item in out["open_items"]] == ["plain"]
    assert models["worker"].calls == 1


def test_the_same_run_fails_at_the_full_bar(models) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", *[graded(RUBRIC, {"plain": "Explain 'YoY'."})] * 2)
    out = run(models, pass_threshold=1.0, max_iterations=2)
    assert out["outcome"] == "exhausted"
    verdict = out["critiques"][-1]["verdict"]
    assert verdict["passed"] is False
    assert verdict["missed"] == ["weighted score 0.83 is below the bar 1.00"]
    assert [item["criterion_id"] for item in out["open_items"]] == ["plain"]


def test_a_failing_must_criterion_blocks_a_pass_whatever_the_score(models) -> None:
    heavy = [
        {"id": "safe", "text": "It contains no personal data.", "weight": 0.1},
        {"id": "style", "text": "It reads well.", "severity": "should", "weight": 50},
    ]
    models.script("worker", "draft 1")
    models.script("critic", graded(heavy, {"safe": "Remove the phone number."}))
    out = run(models, rubric=heavy, pass_threshold=0.5, max_iterations=1)
    verdict = out["critiques"][0]["verdict"]
    assert verdict["score"] == pytest.approx(50 / 50.1)
    assert verdict["passed"] is False
    assert verdict["missed"] == ["must criteria not met: safe"]
    assert out["outcome"] == "exhausted"


def test_best_so_far_prefers_more_must_passes_over_a_higher_score(models) -> None:
    heavy_shoulds = [
        {**criterion, "weight": 2} if criterion.get("severity") == "should" else criterion
        for criterion in RUBRIC
    ]
    models.script("worker", "draft 1: musts met", "draft 2: prettier, one must missed")
    models.script(
        "critic",
        graded(heavy_shoulds, {"plain": "Explain 'YoY'.", "short": "Cut the second paragraph."}),
        graded(heavy_shoulds, {"cited": "Name the source."}),
    )
    out = run(models, rubric=heavy_shoulds, max_iterations=2)
    scores = [c["verdict"]["score"] for c in out["critiques"]]
    assert scores[1] > scores[0]  # round 2 scored higher...
    assert out["final"] == "draft 1: musts met"  # ...but round 1 met every must
    assert out["final_round"] == 1
    assert sorted(item["criterion_id"] for item in out["open_items"]) == ["plain", "short"]


def test_a_judges_terminal_call_ends_the_run_once_a_second_round_confirms_it(models) -> None:
    never = {"accurate": "The table the task refers to was never given."}
    models.script("worker", "draft 1", "draft 2", "draft 3", "draft 4")
    models.script(
        "critic",
        graded(RUBRIC, {"plain": "Explain 'YoY'."}),
        graded(RUBRIC, terminal=never),
        graded(RUBRIC, terminal=never),
    )
    out = run(models, max_iterations=5)
    assert out["outcome"] == "infeasible"
    assert out["outcome_reason"] == (
        "accurate cannot be met: The table the task refers to was never given."
    )
    assert models["worker"].calls == 3 and models["critic"].calls == 3  # rounds 4-5 not run
    assert out["final"] == "draft 1"  # the best draft: every must passed
    [item] = out["open_items"]
    assert item["criterion_id"] == "plain"
    with pytest.raises(LoopInfeasible) as raised:
        result_of(out, {"on_exhausted": "raise"})
    assert "never given" in str(raised.value)


def test_one_terminal_call_from_a_single_judge_does_not_end_the_run(models) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script(
        "critic",
        graded(RUBRIC, terminal={"accurate": "Wrongly thought impossible."}),
        graded(RUBRIC),
    )
    out = run(models, max_iterations=5)
    assert out["outcome"] == "passed"
    assert out["final"] == "draft 2"


def test_a_panel_majority_confirms_a_terminal_call_at_once(models) -> None:
    never = {"accurate": "The table the task refers to was never given."}
    models.script("worker", "draft 1", "draft 2")
    for judge in ("j1", "j2", "j3"):
        models.script(judge, graded(RUBRIC, terminal=never))
    out = run(models, max_iterations=5, critic_models=["scripted:j1", "scripted:j2", "scripted:j3"])
    assert out["outcome"] == "infeasible"
    assert models["worker"].calls == 1


def test_a_terminal_should_criterion_does_not_end_a_run_that_can_still_pass(models) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script(
        "critic",
        graded(
            RUBRIC, {"accurate": "Fix Q3."}, terminal={"short": "The facts need two paragraphs."}
        ),
        graded(RUBRIC, terminal={"short": "The facts need two paragraphs."}),
    )
    out = run(models, pass_threshold=0.8, max_iterations=3)
    assert out["outcome"] == "passed"  # 2.5 / 3 without "short" clears 0.8
    assert models["worker"].calls == 2


def test_a_terminal_should_criterion_that_sinks_the_threshold_is_infeasible(models) -> None:
    models.script("worker", "draft 1", "draft 2")
    terminal = graded(RUBRIC, terminal={"short": "The facts need two paragraphs."})
    models.script("critic", terminal, terminal)
    out = run(models, pass_threshold=1.0, max_iterations=3)
    assert out["outcome"] == "infeasible"
    assert models["worker"].calls == 2


def test_the_critic_cannot_mark_a_passed_criterion_terminal(models) -> None:
    answer = graded(RUBRIC)
    answer["results"][0]["terminal"] = True
    models.script("worker", "draft")
    models.script("critic", answer)
    out = run(models, critic_attempts=1, max_iterations=1)
    assert "is marked terminal but passed" in out["critiques"][0]["rejected"][0]
    [first, *_] = out["critiques"][0]["verdict"]["results"]
    assert not first["passed"] and not first["terminal"]  # counted as not graded
    assert out["outcome"] == "exhausted"


def test_a_failing_should_check_does_not_stop_the_judge(models) -> None:
    rubric = [
        {"id": "short", "kind": "word_count", "max": 3, "severity": "should"},
        {"id": "clear", "text": "It is clear."},
    ]
    models.script("worker", "a draft of more than three words")
    judge = models.script("critic", graded(rubric[1:]))
    out = run(models, rubric=rubric, pass_threshold=0.5)
    assert judge.calls == 1  # a pass was still possible without the should check
    assert out["outcome"] == "passed"


def test_a_terminal_test_suite_ends_the_run_as_infeasible(models) -> None:
    rubric = [
        {
            "id": "tests",
            "kind": "tests",
            "tests": "import not_installed_anywhere\n\ndef test_x():\n    assert True\n",
        }
    ]
    models.script("worker", "def f(): pass", "def f(): return 1")
    out = run(models, rubric=rubric, max_iterations=4)
    assert out["outcome"] == "infeasible"
    assert "not_installed_anywhere" in out["outcome_reason"]
    assert models["worker"].calls == 1


@pytest.mark.parametrize(
    ("rubric", "message"),
    [
        (
            [
                {"id": "brief", "kind": "word_count", "max": 50},
                {"id": "thorough", "kind": "word_count", "min": 200},
            ],
            "criteria 'brief' and 'thorough' contradict each other: at most 50 words and at "
            "least 200 words",
        ),
        (
            [
                {
                    "id": "brand",
                    "kind": "contains",
                    "phrases": ["ACME Widgets"],
                    "case_sensitive": True,
                },
                {"id": "no_acme", "kind": "regex", "pattern": "ACME", "must_match": False},
            ],
            "criteria 'brand' and 'no_acme' contradict each other: 'ACME Widgets' is required "
            "and forbidden",
        ),
        (
            [
                {"id": "tiny", "kind": "char_count", "min": 500},
                {"id": "tweet", "kind": "char_count", "max": 280},
            ],
            "criteria 'tiny' and 'tweet' contradict each other: at most 280 characters and at "
            "least 500 characters",
        ),
    ],
)
def test_contradictory_rubrics_are_refused_naming_both_criteria(models, rubric, message) -> None:
    models.script("worker")
    models.script("critic")
    with pytest.raises(InvalidInput) as raised:
        run(models, rubric=rubric)
    assert message in str(raised.value)
    assert models["worker"].calls == models["critic"].calls == 0


@pytest.mark.parametrize("threshold", [-0.1, 1.5])
def test_threshold_outside_0_to_1_is_refused(threshold) -> None:
    with pytest.raises(ValidationError, match="pass_threshold"):
        context(pass_threshold=threshold)


def test_terminal_on_the_last_allowed_round_is_infeasible_not_exhausted(models) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script(
        "critic",
        graded(RUBRIC, {"plain": "x"}, terminal={"cited": "No source exists for these figures."}),
        graded(RUBRIC, terminal={"cited": "No source exists for these figures."}),
    )
    out = run(models, max_iterations=2)
    assert out["outcome"] == "infeasible"
    assert out["outcome_reason"] == "cited cannot be met: No source exists for these figures."
