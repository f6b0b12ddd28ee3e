"""The effectiveness benchmark, end to end, against the scripted OpenAI-compatible server.

The scripted worker answers each task with drafts chosen per round, so every figure of the
report and the printed table is known in advance:

- chunk_pad: a naive first draft fails the visible examples, the revision is correct. One
  shot fails; the loop solves it in 2 rounds (a win for the loop).
- second_largest_distinct: a naive draft passes the visible examples but fails hidden
  tests. The loop passes it in round 1, the hidden grader does not: unsolved for both.
- solar_coop_slogan: the first draft passes the rubric. Solved by both in 1 round.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmarks.effectiveness import cli, summarize
from benchmarks.effectiveness.configs import CONFIGS, shared_settings
from benchmarks.effectiveness.grading import check_task, grade, loop_rubric
from benchmarks.effectiveness.report import EffectivenessReport, Run
from benchmarks.effectiveness.summary import (
    agreement_effect,
    format_report,
    hidden_fails_by_visible,
)
from benchmarks.effectiveness.taskset import QUICK_IDS, TASKS_DIR, TIERS, CodingTask, load_tasks
from benchmarks.harness.configs import ConfigError, resolve
from benchmarks.harness.runner import MAX_CONSECUTIVE_ERRORS, Cell, RunAborted, run_cells
from critic_loop.state.context import Context
from tests.support.openai_server import (
    Answer,
    Failure,
    ScriptedOpenAIServer,
    Text,
    is_structured_request,
)

IDS = ["chunk_pad", "second_largest_distinct", "solar_coop_slogan"]
NAIVE = json.loads((TASKS_DIR / "naive_solutions.json").read_text())
TASKS = {task.id: task for kind in ("coding", "writing") for task in load_tasks(kind)}
REVISION = re.compile(r"That version \(round (\d+)\) did not pass review")


def code(source: str) -> str:
    return f"```python\n{source}```"


DRAFTS = {
    "`chunk_pad(": [code(NAIVE["chunk_pad"]), code(TASKS["chunk_pad"].reference)],
    "`second_largest_distinct(": [code(NAIVE["second_largest_distinct"])],
    "community solar energy co-op": [TASKS["solar_coop_slogan"].reference],
}


@dataclass
class ScriptedWorker:
    """Answers each task's worker requests with its drafts, by round; counts tokens billed."""

    fail: set[str] = field(default_factory=set)
    """Markers of tasks whose requests are refused (HTTP 400)."""
    calls: list[tuple[str, int]] = field(default_factory=list)
    tokens: int = 0

    def __call__(self, request: dict[str, Any]) -> Answer:
        assert not is_structured_request(request), "no critic model call was expected"
        text = "\n".join(str(message.get("content") or "") for message in request["messages"])
        marker = next(marker for marker in DRAFTS if marker in text)
        revision = REVISION.findall(text)
        index = int(revision[-1]) if revision else 0
        self.calls.append((marker, index))
        if marker in self.fail:
            return Failure(400, "refused by the test")
        drafts = DRAFTS[marker]
        reply = drafts[min(index, len(drafts) - 1)]
        # the scripted server bills ~len/4 tokens for the prompt and for the reply
        self.tokens += max(1, len(json.dumps(request["messages"])) // 4)
        self.tokens += max(1, len(reply) // 4)
        return Text(reply)


@pytest.fixture
def worker() -> ScriptedWorker:
    return ScriptedWorker()


@pytest.fixture
def server(worker: ScriptedWorker) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(worker) as running:
        yield running


def run(server: ScriptedOpenAIServer, *options: str) -> int:
    return cli.main(["--base-url", server.base_url, "--model", "openai:scripted", *options])


def table_rows(output: str, group: str = "all") -> dict[str, list[str]]:
    """The per-configuration lines of a group's printed table, split into cells."""
    table = next(part for part in output.split("\n\n") if part.startswith(f"{group} ("))
    return {line.split()[0]: re.split(r"\s{2,}", line)[1:] for line in table.splitlines()[1:]}


def test_the_report_and_the_table_count_what_happened(
    server: ScriptedOpenAIServer,
    worker: ScriptedWorker,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "report.json"
    status = run(
        server,
        "--ids",
        ",".join(IDS),
        "--configs",
        "single_shot,resample",
        "--rounds",
        "3",
        "--out",
        str(out),
    )
    printed = capsys.readouterr().out
    assert status == 0

    report = json.loads(out.read_text())
    settings = report["settings"]
    assert settings["model"] == "openai:scripted"
    assert settings["base_url"] == server.base_url
    assert settings["rounds"] == 3
    assert settings["configs"] == ["single_shot", "resample"]
    assert settings["task_ids"] == IDS
    assert settings["critic_loop_version"] and settings["started"]
    assert settings["contexts"]["single_shot"]["max_iterations"] == 1
    assert settings["contexts"]["resample"]["max_iterations"] == 3
    assert settings["contexts"]["resample"]["memory"] is False

    rows = {(row["task"], row["config"]): row for row in report["rows"]}
    # interleaved: every configuration of a task before the next task
    assert list(rows) == [(task, config) for task in IDS for config in ("single_shot", "resample")]
    expected = {  # solved, outcome, rounds, worker calls
        ("chunk_pad", "single_shot"): (False, "exhausted", 1, 1),
        ("chunk_pad", "resample"): (True, "passed", 2, 2),
        ("second_largest_distinct", "single_shot"): (False, "passed", 1, 1),
        ("second_largest_distinct", "resample"): (False, "passed", 1, 1),
        ("solar_coop_slogan", "single_shot"): (True, "passed", 1, 1),
        ("solar_coop_slogan", "resample"): (True, "passed", 1, 1),
    }
    for pair, (solved, outcome, rounds, worker_calls) in expected.items():
        row = rows[pair]
        assert (row["solved"], row["outcome"], row["rounds"], row["worker_calls"]) == (
            solved,
            outcome,
            rounds,
            worker_calls,
        ), pair
        assert row["critic_calls"] == 0  # deterministic rubrics need no critic model
        assert row["model_calls"] == worker_calls
        assert row["error"] is None
        assert row["tokens"] == row["input_tokens"] + row["output_tokens"] > 0
    assert rows[("second_largest_distinct", "resample")]["failing"] == ["tests"]
    assert "2 of 10 tests failed" in rows[("second_largest_distinct", "resample")]["grade_evidence"]
    assert rows[("chunk_pad", "resample")]["final"] == DRAFTS["`chunk_pad("][1]
    assert sum(row["tokens"] for row in report["rows"]) == worker.tokens
    assert len(server.plain_requests()) == 7 and not server.structured_requests()

    table = table_rows(printed)
    # solved, vs one shot, wins/losses, some draft solved, calls per task and per solved task,
    # tokens per task and per solved task
    assert table["single_shot"][:8] == [
        "1/3 33%",
        "-",
        "-",
        "1/3 33%",
        "1.00",
        "3.00",
        per(rows, "single_shot"),
        per(rows, "single_shot", solved=1),
    ]
    assert table["resample"][:8] == [
        "2/3 67%",
        "+33.3 pts",
        "1/0",
        "2/3 67%",
        "1.33",
        "2.00",
        per(rows, "resample"),
        per(rows, "resample", solved=2),
    ]
    assert table["single_shot"][-2] == table["resample"][-2] == "0"  # errors
    # passed the examples but not the hidden tests: second_largest_distinct, both times
    assert (table["single_shot"][-1], table["resample"][-1]) == ("1/2", "1/3")
    # the same figures for each kind apart
    assert table_rows(printed, "coding")["resample"][:4] == [
        "1/2 50%",
        "+50.0 pts",
        "1/0",
        "1/2 50%",
    ]
    assert table_rows(printed, "writing")["single_shot"][0] == "1/1 100%"
    assert re.search(r"^chunk_pad\s+coding\s+-1\s+\+2$", printed, re.MULTILINE)
    assert re.search(r"^second_largest_distinct\s+coding\s+-1\s+-1$", printed, re.MULTILINE)

    # the summarize entry prints the same tables from the saved report
    assert summarize.main([str(out)]) == 0
    assert capsys.readouterr().out.strip() in printed
    # or only some configurations, on the tasks all of them ran
    assert summarize.main([str(out), "--configs", "resample"]) == 0
    only = capsys.readouterr().out
    assert re.search(r"^resample\s+2/3", only, re.MULTILINE)
    assert not re.search(r"^single_shot\s", only, re.MULTILINE)
    assert summarize.main([str(out), "--configs", "nosuch"]) == 2


def per(rows: dict[tuple[str, str], dict[str, Any]], config: str, solved: int = 0) -> str:
    """Tokens per task, or per solved task when `solved` says how many were."""
    mine = [row["tokens"] for (_, name), row in rows.items() if name == config]
    return f"{sum(mine) / (solved or len(mine)):.0f}"


def test_errors_are_recorded_and_resume_runs_only_what_is_missing(
    server: ScriptedOpenAIServer,
    worker: ScriptedWorker,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "report.json"
    worker.fail = {"community solar energy co-op"}
    assert run(server, "--ids", ",".join(IDS), "--configs", "single_shot", "--out", str(out)) == 0
    first = json.loads(out.read_text())
    errors = [row for row in first["rows"] if row["error"]]
    assert [(row["task"], row["solved"]) for row in errors] == [("solar_coop_slogan", False)]
    assert "400" in errors[0]["error"] or "refused" in errors[0]["error"]
    assert len(first["rows"]) == 3  # the run went on after the error
    assert table_rows(capsys.readouterr().out)["single_shot"][-2] == "1"  # errors

    # an existing report is never overwritten by accident
    assert run(server, "--ids", ",".join(IDS), "--configs", "single_shot", "--out", str(out)) == 2
    assert "--resume" in capsys.readouterr().err

    worker.fail = set()
    worker.calls.clear()
    status = run(
        server, "--ids", ",".join(IDS), "--configs", "single_shot,resample", "--resume", str(out)
    )
    assert status == 0
    # done pairs are skipped; the errored pair and the new configuration run
    assert sorted(worker.calls) == sorted(
        [
            ("`chunk_pad(", 0),
            ("`chunk_pad(", 1),
            ("`second_largest_distinct(", 0),
            ("community solar energy co-op", 0),
            ("community solar energy co-op", 0),
        ]
    )
    report = json.loads(out.read_text())
    assert len(report["rows"]) == 6 and not any(row["error"] for row in report["rows"])
    assert report["settings"]["configs"] == ["single_shot", "resample"]
    assert len(report["settings"]["runs"]) == 2

    # resuming with other settings is refused: it would mix two experiments
    assert (
        run(
            server,
            "--ids",
            "chunk_pad",
            "--configs",
            "resample",
            "--rounds",
            "2",
            "--resume",
            str(out),
        )
        == 2
    )
    assert "rounds" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_configuration_needing_a_missing_field_is_refused_by_name(name: str) -> None:
    shared = shared_settings("openai:scripted", "http://127.0.0.1:9/v1", 2)
    missing = [key for key in CONFIGS[name] if key not in Context.model_fields]
    if not missing:  # the installed critic_loop has every field it needs
        assert [c.name for c in resolve([name], shared, CONFIGS)] == [name]
        return
    with pytest.raises(ConfigError) as raised:
        resolve([name], shared, CONFIGS)
    assert all(repr(key) in str(raised.value) for key in missing)


def test_an_unknown_field_stops_the_command_before_any_call(
    server: ScriptedOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError, match="'no_such_field'"):
        resolve(["loop"], shared_settings("openai:x", None, 2), {"loop": {"no_such_field": 1}})
    out = tmp_path / "report.json"
    assert run(server, "--quick", "--set", "no_such_field=1", "--out", str(out)) == 2
    assert "'no_such_field'" in capsys.readouterr().err
    assert not out.exists() and not server.requests


def test_a_run_stops_when_cells_keep_failing(tmp_path: Path) -> None:
    tasks = [TASKS[task_id] for task_id in IDS] * 3
    configurations = resolve(["single_shot"], shared_settings("openai:x", None, 2), CONFIGS)
    report = EffectivenessReport.create(tmp_path / "report.json", {"configs": ["single_shot"]})

    def failing(cell: Cell) -> Run:
        return Run(task=f"{cell.task.id}-{len(report.rows)}", kind="coding", config="x", error="E")

    cells = [Cell(1, n, task, configurations[0]) for n, task in enumerate(tasks)]
    with pytest.raises(RunAborted, match="--resume"):
        run_cells(cells, failing, report)
    assert len(json.loads(report.path.read_text())["rows"]) == MAX_CONSECUTIVE_ERRORS


def test_every_task_loads_and_critic_loop_accepts_its_criteria() -> None:
    coding, writing = load_tasks("coding"), load_tasks("writing")
    assert (len(coding), len(writing)) == (49, 14)
    ranged = [task for kind in ("coding", "writing") for task in load_tasks(kind, TIERS["range"])]
    for task in [*coding, *writing, *ranged]:
        check_task(task)
    assert set(QUICK_IDS["project"]) <= set(TASKS)
    assert set(QUICK_IDS["range"]) <= {task.id for task in ranged}


def test_rows_of_an_unchanged_configuration_are_reused_not_run_again(
    server: ScriptedOpenAIServer,
    worker: ScriptedWorker,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = tmp_path / "first.json"
    arguments = ["--ids", ",".join(IDS), "--configs", "single_shot", "--jobs", "2"]
    assert run(server, *arguments, "--out", str(first)) == 0  # two cells at a time
    worker.calls.clear()
    second = tmp_path / "second.json"
    reuse = f"{first}:single_shot"
    arguments = ["--ids", ",".join(IDS), "--configs", "single_shot,resample"]
    assert run(server, *arguments, "--reuse", reuse, "--out", str(second)) == 0
    assert len(worker.calls) == 4  # resample's pairs only: chunk_pad takes two rounds
    report = json.loads(second.read_text())
    [reused] = report["settings"]["reused"]
    assert reused["from"] == str(first) and reused["rows"] == 3
    assert reused["configs"] == {"single_shot": "single_shot"}
    before = {r["task"]: r for r in json.loads(first.read_text())["rows"]}
    after = {r["task"]: r for r in report["rows"] if r["config"] == "single_shot"}
    assert after == before

    # a configuration may be reused under another name, if it ran with the same settings
    third = tmp_path / "third.json"
    renamed = f"{second}:single_shot,stop=resample"
    arguments_stop = ["--ids", ",".join(IDS), "--configs", "single_shot,stop"]
    assert run(server, *arguments_stop, "--reuse", renamed, "--out", str(third)) == 2
    assert "ran with other settings than this run's 'stop'" in capsys.readouterr().err

    # a configuration that ran with other settings is not reused
    other = tmp_path / "other.json"
    refused = run(server, *arguments, "--rounds", "2", "--reuse", reuse, "--out", str(other))
    assert refused == 2
    assert "cannot reuse rows" in capsys.readouterr().err


def test_the_default_drafts_three_candidates_for_code_and_every_call_is_counted(
    server: ScriptedOpenAIServer, worker: ScriptedWorker, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    assert run(server, "--ids", "chunk_pad", "--configs", "default", "--out", str(out)) == 0
    [row] = json.loads(out.read_text())["rows"]
    # the scripted worker answers the three candidates alike: one attempt, so no stall yet,
    # and round 2 revises it into the correct draft
    assert (row["outcome"], row["rounds"], row["drafts"]) == ("passed", 2, 4)
    assert row["worker_calls"] == row["model_calls"] == len(worker.calls) == 4
    assert [(g["round"], g["candidate"]) for g in row["draft_grades"]] == [
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 1),
    ]
    assert [g["solved"] for g in row["draft_grades"]] == [False, False, False, True]


def test_what_agreement_chose_is_compared_with_the_first_passing_candidate() -> None:
    def grade(candidate: int, visible: bool, solved: bool, support: int) -> dict[str, Any]:
        return {
            "round": 1,
            "candidate": candidate,
            "visible": visible,
            "solved": solved,
            "support": support,
        }

    def row(task: str, *grades: dict[str, Any], solved: bool) -> Run:
        return Run(
            task=task,
            kind="coding",
            config="default",
            solved=solved,
            outcome="passed",
            final_round=1,
            draft_grades=list(grades),
        )

    rows = [
        # the first passing candidate is the odd one out: agreement picks 2, which solves it
        row(
            "a",
            grade(1, True, False, 1),
            grade(2, True, True, 2),
            grade(3, True, True, 2),
            solved=True,
        ),
        # the first is in the larger group: no change
        row(
            "b",
            grade(1, True, True, 2),
            grade(2, False, False, 1),
            grade(3, True, True, 2),
            solved=True,
        ),
        # agreement picks the wrong majority
        row(
            "c",
            grade(1, True, True, 1),
            grade(2, True, False, 2),
            grade(3, True, False, 2),
            solved=False,
        ),
        # one passing candidate: nothing to choose
        row("d", grade(1, False, False, 1), grade(2, True, False, 1), solved=False),
    ]
    assert agreement_effect("default", rows) == (3, 2, 1, 1)
    settings = {"configs": ["default"], "task_ids": list("abcd"), "model": "m", "rounds": 2}
    data = {"settings": settings, "rows": [row.as_json() for row in rows]}
    assert (
        "agreement (default): 3 run(s) passed with several candidates; it chose another than "
        "the first passing one in 2, solving 1 the first would not and losing 1"
    ) in format_report(data)


def test_summarize_can_count_only_the_tasks_another_report_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def report(name: str, configs: list[str], tasks: list[str]) -> Path:
        path = tmp_path / name
        settings = {"model": "m", "rounds": 2, "configs": configs, "task_ids": IDS}
        made = EffectivenessReport.create(path, settings)
        for task in tasks:
            for config in configs:
                made.record(Run(task=task, kind="coding", config=config, solved=True))
        return path

    every = report("every.json", ["single_shot", "default"], IDS)
    some = report("some.json", ["default"], IDS[:2])
    assert summarize.main([str(every), "--tasks-of", str(some)]) == 0
    printed = capsys.readouterr().out
    assert "2 task(s) run by every configuration" in printed and IDS[2] not in printed


def test_every_model_call_is_counted_retries_and_judge_calls_too() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from benchmarks.effectiveness.calls import counting
    from critic_loop.run import run_loop
    from tests.support.openai_server import BrokenBody, Raw, RoleScript
    from tests.support.verdicts import graded

    rubric = [{"id": "clear", "text": "It is clear."}]
    script = RoleScript(
        worker=[BrokenBody(b'{"id": "x", "choices": [{"message'), "A clear draft."],
        critic=[Raw('{"results": [{"criterion_id": "cle'), graded(rubric)],
    )
    with ScriptedOpenAIServer(script) as model_server, counting() as counter:
        state = run_loop(
            "Write something clear.",
            rubric,
            context={
                "worker_model": "openai:scripted",
                "critic_model": "openai:scripted",
                "base_url": model_server.base_url,
                "memory": False,
                "structured_output_method": "json_mode",
            },
            checkpointer=InMemorySaver(),
        )
    assert state.outcome == "passed"
    # a malformed worker reply and an unreadable verdict each cost a second call
    assert dict(counter.tally.calls) == {"worker": 2, "critic": 2}
    assert len(model_server.requests) == 4
    assert counter.tally.input_tokens > 0 and counter.tally.output_tokens > 0


def test_the_range_tier_validates_its_writing_and_sample_coding_tasks() -> None:
    from benchmarks.effectiveness.validate import validate

    tasks = {
        task.id: task for kind in ("coding", "writing") for task in load_tasks(kind, TIERS["range"])
    }
    coding = [task for task in tasks.values() if isinstance(task, CodingTask)]
    assert (len(coding), len(tasks) - len(coding)) == (80, 45)
    assert sum(not task.visible_count for task in coding) == 20
    for task in tasks.values():
        if task.kind == "writing":
            assert validate(task, "range", {}) == ([], None), task.id
    for task_id in [*QUICK_IDS["range"][:2], "he068_pluck"]:
        assert validate(tasks[task_id], "range", {}) == ([], None), task_id


def test_a_coding_task_without_examples_is_checked_for_syntax_and_graded_by_hidden_tests() -> None:
    task = next(t for t in load_tasks("coding", TIERS["range"]) if t.id == "he068_pluck")
    assert isinstance(task, CodingTask) and task.visible_count == 0
    assert loop_rubric(task) == [{"id": "syntax", "kind": "python_syntax"}]
    assert grade(task, task.reference).solved
    assert not grade(task, "```python\ndef pluck(arr):\n    return []\n```").solved


def test_the_summary_counts_what_selection_lost_and_the_cost_per_solved_task() -> None:
    from benchmarks.effectiveness.summary import summarize

    def row(task: str, config: str, solved: bool, drafts: list[bool], calls: int) -> Run:
        grades = [{"round": 1, "candidate": n, "solved": s} for n, s in enumerate(drafts, 1)]
        return Run(
            task=task,
            kind="coding" if task < "c" else "writing",
            config=config,
            solved=solved,
            worker_calls=calls,
            input_tokens=100 * calls,
            draft_grades=grades,
        )

    rows = [
        row("a", "single_shot", False, [False], 1),
        row("a", "default", False, [False, True, False], 3),  # a draft solved it; not the kept one
        row("b", "single_shot", True, [True], 1),
        row("b", "default", True, [True, True, True], 3),
        row("c", "single_shot", False, [False], 1),
        row("c", "default", True, [False, True], 4),
    ]
    settings = {"configs": ["single_shot", "default"], "task_ids": ["a", "b", "c"]}
    figures = summarize(settings, rows)
    default = figures["all"][1]
    assert (default.solved, default.some_solved, default.wins, default.losses) == (2, 3, 1, 0)
    assert default.delta_points == pytest.approx(100 / 3)
    assert (default.per(default.calls), default.per(default.calls, solved=True)) == ("3.33", "5.00")
    assert default.per(default.tokens, solved=True, digits=0) == "500"
    assert [f.solved for f in figures["coding"]] == [1, 1]
    assert [f.solved for f in figures["writing"]] == [0, 1]


def test_the_summary_splits_visible_passes_that_hidden_tests_fail_by_visible_tests() -> None:
    def row(task: str, config: str, visible: int, passed: bool, solved: bool) -> Run:
        outcome = "passed" if passed else "exhausted"
        return Run(
            task=task, kind="coding", config=config, visible_tests=visible, outcome=outcome,
            solved=solved,
        )  # fmt: skip

    rows = [
        row("a", "single_shot", 0, True, False),
        row("a", "default", 0, True, True),
        row("b", "single_shot", 0, True, True),
        row("b", "default", 0, False, False),
        row("c", "single_shot", 4, True, False),
        row("c", "default", 4, True, False),
    ]
    settings = {"configs": ["single_shot", "default"], "task_ids": ["a", "b", "c"]}
    lines = hidden_fails_by_visible(settings, rows).splitlines()
    assert lines[2].split() == ["0", "(2)", "1/2", "50%", "0/1", "0%"]
    assert lines[3].split() == ["3+", "(1)", "1/1", "100%", "1/1", "100%"]
