"""The effectiveness benchmark's judged tier: its tasks, hidden graders and what it counts.

A judged task's rubric is sentences a model grades; hidden graders (patterns) decide on the
final draft whether each is truly met. The run's own declaration (the final draft's verdict)
is compared with them: a judged criterion it declared passed that the grader fails is a
false pass, and a final draft under 40% of its run's first draft's length that fails its
grading is degenerate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks.effectiveness import cli
from benchmarks.effectiveness.grading import check_task, grade, loop_rubric
from benchmarks.effectiveness.report import Run
from benchmarks.effectiveness.run import record_result
from benchmarks.effectiveness.summary import format_report, summarize
from benchmarks.effectiveness.taskset import (
    QUICK_IDS,
    TIERS,
    JudgedTask,
    TaskFileError,
    load_tasks,
)
from benchmarks.effectiveness.validate import validate
from critic_loop import LoopState
from critic_loop.state.records import Critique, Draft, OpenItem
from critic_loop.state.verdict import CriterionResult, Verdict
from tests.support.openai_server import (
    ARTIFACT,
    Answer,
    Failure,
    ScriptedOpenAIServer,
    Structured,
    Text,
    is_extract_request,
    is_structured_request,
    quoted_of,
    rubric_ids,
    schema_name,
)
from tests.support.verdicts import QUOTE

TASKS = {
    task.id: task
    for task in load_tasks("judged", TIERS["judged"])
    if isinstance(task, JudgedTask)  # all of them
}
CHESS = TASKS["chess_club_welcome"]
LONG_DRAFT = (
    "Welcome to the Riverside Chess Club! We meet every Tuesday at 7 pm in the community "
    "hall. Players of every level are welcome, and our members love a friendly game."
)  # meets the meeting time, not the chess set


def test_the_judged_tier_has_24_to_30_tasks_and_every_one_validates() -> None:
    assert 24 <= len(TASKS) <= 30
    assert set(QUICK_IDS["judged"]) <= set(TASKS)
    for task in TASKS.values():
        check_task(task)
        # every grader passes the reference and the paraphrase and fails the bad example;
        # some judged criterion of the task is not stated in its prompt
        assert validate(task, "judged", {}) == ([], None), task.id
        judged = [c for c in task.rubric if c.get("kind", "llm") == "llm"]
        assert 2 <= len(judged) <= 3 and len(task.rubric) - len(judged) <= 1, task.id


@pytest.mark.parametrize(
    ("task_id", "draft", "met"),
    [
        (
            "chess_club_welcome",
            "Welcome! Meetings: Tuesdays, 7:00 PM. Members should bring their own chess sets.",
            {"meeting_time", "own_set"},
        ),
        (
            "chess_club_welcome",
            "Welcome! We meet on Tuesday evenings at 7. Please bring your own chess equipment.",
            {"meeting_time", "own_set"},
        ),
        (
            "chess_club_welcome",
            "We meet Thursday at 7 pm. No need to bring a chess set: the club provides boards.",
            set(),
        ),
        (
            "coffee_mug_description",
            "This 350-ml mug is not dishwasher safe; hand wash only.",
            {"capacity"},
        ),
        (
            "binary_search_beginner",
            "When you revise, start from your previous version: change what the feedback asks "
            "for and keep what already works.",
            set(),
        ),
        (
            "shop_hours_sign_spanish",
            "Opening hours: Monday to Friday 9:00-18:00. Closed on Sundays.",
            {"weekday_hours", "sunday_closed"},  # right facts, wrong language
        ),
        ("git_undo_last_commit", "Run git reset --hard HEAD~1 to undo the commit.", set()),
    ],
)
def test_graders_accept_other_wordings_and_refuse_drafts_that_do_not_say_it(
    task_id: str, draft: str, met: set[str]
) -> None:
    task = TASKS[task_id]
    failing = grade(task, draft).failing
    assert {c for c in task.graders if c not in failing} == met


def test_the_validator_reports_a_grader_that_is_wrong_about_its_drafts() -> None:
    # the paraphrase says "Don't forget your own chess set"
    too_strict = {**CHESS.graders, "own_set": {"all": ["bring your own chess set"]}}
    too_loose = {**CHESS.graders, "meeting_time": {"any": ["welcome"]}}
    missing = {"meeting_time": CHESS.graders["meeting_time"]}
    stated = replace(CHESS, prompt=CHESS.prompt + " " + CHESS.reference)

    assert any("paraphrase fails ['own_set']" in p for p in validate_task(CHESS, too_strict))
    assert any(
        "bad example passes the graders of ['meeting_time']" in p
        for p in validate_task(CHESS, too_loose)
    )
    assert any("want one for each of" in p for p in validate_task(CHESS, missing))
    assert validate(stated, "judged", {})[0] == [
        "the prompt states every judged criterion: none is hidden"
    ]


def validate_task(task: JudgedTask, graders: dict[str, Any]) -> list[str]:
    return validate(replace(task, graders=graders), "judged", {})[0]


def test_a_malformed_judged_task_is_refused_before_any_run(tmp_path: Path) -> None:
    row = json.loads((TIERS["judged"] / "judged.jsonl").read_text(encoding="utf-8").splitlines()[0])
    (tmp_path / "judged.jsonl").write_text(json.dumps({**row, "graders": ["x"]}) + "\n")
    with pytest.raises(TaskFileError, match="graders is not of the right shape"):
        load_tasks("judged", tmp_path)
    unknown = replace(CHESS, graders={**CHESS.graders, "own_set": {"some": ["set"]}})
    with pytest.raises(ValueError, match="give `all` or `any`"):
        check_task(unknown)
    bad_pattern = replace(CHESS, graders={**CHESS.graders, "own_set": {"all": ["(unclosed"]}})
    with pytest.raises(ValueError, match="chess_club_welcome"):
        check_task(bad_pattern)


def test_one_shot_is_graded_only_by_its_checks_and_never_asks_a_judge() -> None:
    binary = TASKS["binary_search_beginner"]
    assert loop_rubric(binary, judge=False) == [binary.rubric[-1]]  # its word limit
    assert [c["id"] for c in loop_rubric(CHESS, judge=False)] == ["not_blank"]
    assert loop_rubric(CHESS) == CHESS.rubric


def judged_run(
    drafts: list[str], verdicts: list[dict[str, bool]], final: int, **state: Any
) -> LoopState:
    """A crafted run of the chess task: a draft a round, each graded as `verdicts` say."""
    made = [Draft(round=n, text=text) for n, text in enumerate(drafts, 1)]
    critiques = [
        Critique(
            round=n,
            verdict=Verdict(
                results=[
                    CriterionResult(criterion_id=c, passed=ok, evidence="judged")
                    for c, ok in results.items()
                ]
            ),
        )
        for n, results in enumerate(verdicts, 1)
    ]
    chosen = verdicts[final - 1]
    unmet = [
        OpenItem(criterion_id=c, text=c, evidence="judged", hint="")
        for c, ok in chosen.items()
        if not ok
    ]
    return LoopState(
        task=CHESS.prompt,
        rubric=CHESS.rubric,
        drafts=made,
        critiques=critiques,
        final=drafts[final - 1],
        final_round=final,
        open_items=unmet,
        **state,
    )


def recorded(state: LoopState, config: str = "default") -> Run:
    row = Run(task=CHESS.id, kind="judged", config=config, rounds=state.rounds)
    row.outcome = state.outcome
    record_result(row, CHESS, state)
    return row


BOTH = {"meeting_time": True, "own_set": True}
TIME_ONLY = {"meeting_time": True, "own_set": False}


def test_a_declared_pass_the_grader_fails_is_false_and_a_shrunken_failing_final_degenerate() -> (
    None
):
    # round 2 shrinks the draft to a line that says neither; the judge passes it
    shrunk = recorded(
        judged_run(
            [LONG_DRAFT, "Welcome to the chess club!"], [TIME_ONLY, BOTH], 2, outcome="passed"
        )
    )
    assert shrunk.judged_met == {"meeting_time": False, "own_set": False}
    assert shrunk.declared_passed == ["meeting_time", "own_set"]
    assert shrunk.false_passes == ["meeting_time", "own_set"]
    assert shrunk.degenerate and not shrunk.solved
    assert shrunk.first_chars == len(LONG_DRAFT)

    # the run keeps its first draft: it declared only what the grader confirms
    kept = recorded(judged_run([LONG_DRAFT], [TIME_ONLY], 1, outcome="exhausted"))
    assert kept.judged_met == {"meeting_time": True, "own_set": False}
    assert kept.declared_passed == ["meeting_time"]
    assert kept.false_passes == [] and not kept.degenerate

    # a short final that meets every criterion is not degenerate; one shot declares nothing
    short = "Tuesday, 7 pm. Bring your own chess set!"
    solved = recorded(judged_run([LONG_DRAFT, short], [TIME_ONLY, BOTH], 2, outcome="passed"))
    assert solved.solved and solved.false_passes == [] and not solved.degenerate
    once = LoopState(
        task=CHESS.prompt,
        rubric=loop_rubric(CHESS, judge=False),
        drafts=[Draft(round=1, text=LONG_DRAFT)],
        critiques=[
            Critique(
                round=1,
                verdict=Verdict(
                    results=[CriterionResult(criterion_id="not_blank", passed=True, evidence="")]
                ),
            )
        ],
        final=LONG_DRAFT,
        final_round=1,
        outcome="passed",
    )
    single = recorded(once, config="single_shot")
    assert single.declared_passed == [] and single.judged_met["meeting_time"]

    # the tables count them: criteria met, false passes of declared, degenerate finals
    rows = [single, shrunk]
    settings = {
        "configs": ["single_shot", "default"],
        "task_ids": [CHESS.id],
        "model": "m",
        "rounds": 2,
    }
    [one, loop] = summarize(settings, rows)["judged"]
    assert (one.criteria_met, one.criteria, one.declared, one.false_passes) == (1, 2, 0, 0)
    assert (loop.criteria_met, loop.criteria, loop.declared, loop.false_passes) == (0, 2, 2, 2)
    assert (one.degenerate, loop.degenerate) == (0, 1)
    printed = format_report({"settings": settings, "rows": [row.as_json() for row in rows]})
    table = table_rows(printed, "judged")
    assert table["single_shot"][-3:] == ["1/2 50%", "-", "0"]
    assert table["default"][-3:] == ["0/2 0%", "2/2 100%", "1"]
    assert re.search(r"^chess_club_welcome\s+judged\s+-1 1/2\s+-2 0/2\*\*<$", printed, re.M)
    assert "| one shot, 1 judged tasks | 1 of 2 (50%) | 0 (0%) | - (declares none) | 0 |" in printed
    assert "| the defaults, 1 judged tasks | 0 of 2 (0%) | 0 (0%) | 2 of 2 (100%) | 1 |" in printed


def table_rows(output: str, group: str) -> dict[str, list[str]]:
    """The per-configuration lines of a group's printed table, split into cells."""
    table = next(part for part in output.split("\n\n") if part.startswith(f"{group} ("))
    return {line.split()[0]: re.split(r"\s{2,}", line)[1:] for line in table.splitlines()[1:]}


@dataclass
class PassEverything:
    """A worker that writes the task's bad example; a judge that passes every criterion."""

    worker_calls: int = 0
    judge_calls: list[str] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> Answer:
        text = "\n".join(str(m.get("content") or "") for m in request["messages"])
        if is_extract_request(request):
            self.judge_calls.append("extract")
            return Text(quoted_of(request))
        if is_structured_request(request):
            self.judge_calls.append(schema_name(request) or "?")
            if schema_name(request) == "answer":
                return Structured({"quote": QUOTE, "verdict": "met", "hint": ""})
            results = [
                {
                    "criterion_id": c,
                    "evidence": f'It says "{QUOTE}".',
                    "passed": True,
                    "terminal": False,
                    "hint": "",
                }
                for c in rubric_ids(request)
            ]
            return Structured({"results": results, "feedback": "", "passed": True})
        if ARTIFACT.search(text):  # any other question about a draft: yes
            self.judge_calls.append("plain")
            return Text("Yes")
        self.worker_calls += 1
        return Text(CHESS.bad_example)


@pytest.fixture
def judge() -> PassEverything:
    return PassEverything()


@pytest.fixture
def server(judge: PassEverything) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(judge) as running:
        yield running


def test_the_tier_runs_end_to_end_and_counts_the_judges_false_passes(
    server: ScriptedOpenAIServer,
    judge: PassEverything,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "judged.json"
    arguments = ["--base-url", server.base_url, "--model", "openai:scripted", "--tier", "judged"]
    arguments += ["--ids", CHESS.id, "--configs", "single_shot,default", "--rounds", "2"]
    assert cli.main([*arguments, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = {row["config"]: row for row in json.loads(out.read_text())["rows"]}

    one, loop = rows["single_shot"], rows["default"]
    # one shot: one worker call, no judge; its draft meets neither hidden requirement
    assert (one["worker_calls"], one["critic_calls"], one["declared_passed"]) == (1, 0, [])
    assert one["judged_met"] == {"meeting_time": False, "own_set": False}
    # the loop's judge passes the same draft on the chess set (a false pass on its final);
    # code rules out the meeting time, which the draft does not name (no Tuesday, no 7)
    assert loop["outcome"] == "exhausted" and loop["critic_calls"] >= 1
    assert (
        loop["model_calls"]
        == loop["worker_calls"] + loop["critic_calls"]
        == len(server.requests) - 1
    )
    assert loop["declared_passed"] == ["own_set"]
    assert loop["judged_met"] == {"meeting_time": False, "own_set": False}
    assert loop["final"] == CHESS.bad_example and not loop["solved"]
    table = table_rows(printed, "judged")
    # passed visible, failed hidden; criteria met; false passes; degenerate finals
    assert table["default"][-4:] == ["0/0", "0/2 0%", "1/1 100%", "0"]
    assert table["single_shot"][-4:] == ["0/0", "0/2 0%", "-", "0"]  # one shot declares none
    assert "README rows (judged tasks):" in printed


def test_a_run_that_failed_counts_its_judged_criteria_as_not_met() -> None:
    from benchmarks.effectiveness.configs import CONFIGS
    from benchmarks.effectiveness.run import run_cell
    from benchmarks.harness.configs import resolve
    from benchmarks.harness.runner import Cell

    with ScriptedOpenAIServer(lambda request: Failure(400, "refused by the test")) as refusing:
        settings = {"worker_model": "openai:scripted", "critic_model": "openai:scripted"}
        shared = {**settings, "base_url": refusing.base_url, "memory": False}
        [default] = resolve(["default"], shared, CONFIGS)
        row = run_cell(Cell(1, 0, CHESS, default))
    assert row.error is not None
    assert row.judged_met == {"meeting_time": False, "own_set": False}
    assert row.false_passes == [] and not row.degenerate
