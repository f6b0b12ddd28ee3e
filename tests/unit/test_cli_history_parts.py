"""The parts behind `runs`, `show`, `stats`, `rules`, `forget` and `calibrate`.

Reading threads (values, timelines, round times), the statistics' definitions, Cohen's
kappa, grading one artifact, help text, and that `--help` stays free of heavy imports.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from critic_loop.cli import main
from critic_loop.cli.agreement import Agreement
from critic_loop.cli.calibrate import read_labels
from critic_loop.cli.history import cut, runs_table
from critic_loop.cli.run_stats import nearest_rank, spread
from critic_loop.cli.stored_threads import (
    STATE_FIELDS,
    Step,
    Thread,
    line_of,
    round_seconds,
    state_values,
)
from critic_loop.errors import UsageProblem
from critic_loop.grading import GradingFailed, grade
from critic_loop.state.loop import LoopState
from tests.support.verdicts import graded

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# --- reading ----------------------------------------------------------------------------------


def test_the_state_channels_are_the_loop_states_fields() -> None:
    assert set(LoopState.model_fields) == STATE_FIELDS


def test_state_values_keep_the_loops_channels_and_the_input_of_a_fresh_thread() -> None:
    values = state_values(
        {"task": "t", "rubric": [], "branch:to:route": None, "__pregel_tasks": [], "outcome": None}
    )
    assert values == {"task": "t", "rubric": [], "outcome": None}
    fresh = state_values({"__start__": {"task": "t", "rubric": [{"id": "a", "text": "x"}]}})
    assert fresh == {"task": "t", "rubric": [{"id": "a", "text": "x"}]}


def test_a_timeline_follows_parents_and_leaves_other_branches_out() -> None:
    steps = {
        "1": Step("1", None, at(0), 0, 0),
        "2": Step("2", "1", at(1), 1, 1),
        "3a": Step("3a", "2", at(2), 2, 2),  # the original branch
        "3b": Step("3b", "2", at(5), 2, 1),  # a fork from round 1
        "4b": Step("4b", "3b", at(9), 2, 2),
    }
    assert [step.checkpoint_id for step in line_of(steps, "4b", {})] == ["1", "2", "3b", "4b"]


def test_a_round_is_timed_from_before_its_first_draft_to_its_first_critique() -> None:
    line = [
        Step("a", None, at(0), 0, 0),  # input
        Step("b", "a", at(1), 0, 0),  # recall done: round 1 starts here
        Step("c", "b", at(4), 1, 0),  # drafted
        Step("d", "c", at(6), 1, 1),  # graded: round 1 took 5 s
        Step("e", "d", at(6.5), 1, 1),  # routed: round 2 starts here
        Step("f", "e", at(8.5), 2, 1),
        Step("g", "f", at(9.5), 2, 2),  # graded: round 2 took 3 s
        Step("h", "g", at(10), 2, 2),  # finalize
    ]
    assert round_seconds(line) == {1: 5.0, 2: 3.0}
    assert round_seconds(line[:5]) == {1: 5.0}  # round 2 not graded yet
    untimed = [Step(s.checkpoint_id, s.parent_id, None, s.drafted, s.graded) for s in line]
    assert round_seconds(untimed) == {}


def test_a_pause_between_invocations_is_left_out_of_a_rounds_time() -> None:
    line = [
        Step("a", None, at(0), 0, 0, run="first"),
        Step("b", "a", at(1), 0, 0, run="first"),  # round 1 starts here
        Step("c", "b", at(4), 1, 0, run="first"),  # drafted (3 s); then the process stopped
        Step("d", "c", at(3604), 1, 1, run="second"),  # resumed an hour later and graded
        Step("e", "d", at(3604.5), 1, 1, run="second"),  # routed: round 2 starts here
        Step("f", "e", at(3606.5), 2, 1, run="second"),
        Step("g", "f", at(3607.5), 2, 2, run="second"),  # graded: round 2 took 3 s
    ]
    assert round_seconds(line) == {1: 3.0, 2: 3.0}
    unmarked = [Step(s.checkpoint_id, s.parent_id, s.at, s.drafted, s.graded) for s in line]
    assert round_seconds(unmarked)[1] == 3603.0  # without marks the pause cannot be seen


def test_a_thread_reads_its_scope_rounds_and_end_from_its_values() -> None:
    values = {
        "task": "Explain.\nMore.",
        "rubric": [],
        "critiques": [{"round": 1}, {"round": 2}, {"round": 2, "candidate": 2}],
        "recalled_rules": [{"id": "r", "text": "x", "scope": "poems"}],
        "outcome": None,
    }
    thread = Thread("t", values, updated_at=at(9), started_at=at(0))
    assert (thread.rounds, thread.scope, thread.finished, thread.ended_at) == (
        2,
        "poems",
        False,
        None,
    )
    values["outcome"] = "passed"
    values["memory_report"] = {"scope": "haiku"}
    assert (thread.finished, thread.ended_at, thread.scope) == (True, at(9), "haiku")


def test_runs_table_aligns_columns_and_cuts_the_task() -> None:
    long_task = "Write " + "very " * 30 + "long things.\nSecond line."
    threads = [
        Thread(
            "abc",
            {"task": long_task, "rubric": [], "outcome": "passed", "critiques": [{"round": 3}]},
            updated_at=at(60),
            started_at=at(0),
        ),
        Thread("a-much-longer-id", {"task": "Short.", "rubric": []}, updated_at=at(5)),
    ]
    header, first, second = runs_table(threads)
    assert header.index("OUTCOME") == first.index("passed") == second.index("unfinished")
    assert first.endswith("...") and len(first.split("  ")[-1]) == 40
    assert len(cut(long_task, 60)) == 60
    assert "2026-01-01 12:00  2026-01-01 12:01" in first
    assert second.split()[-1] == "Short."


# --- statistics -------------------------------------------------------------------------------


def test_nearest_rank_percentiles() -> None:
    assert nearest_rank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9) == 9  # ceil(9.0) = 9th
    assert nearest_rank([5, 1, 3], 0.9) == 5  # ceil(2.7) = 3rd of 1, 3, 5
    assert nearest_rank([4], 0.9) == 4
    assert spread([]) == {"count": 0, "mean": None, "median": None, "p90": None}
    assert spread([1, 2, 3, 10]) == {"count": 4, "mean": 4.0, "median": 2.5, "p90": 10}


# --- agreement --------------------------------------------------------------------------------


def test_cohens_kappa_against_a_hand_computed_table() -> None:
    # human: P P P P F F F F F F; critic: P P P F P F F F F F
    pairs = [(True, True)] * 3 + [(True, False)] + [(False, True)] + [(False, False)] * 5
    table = Agreement.of(pairs)
    assert (table.both_pass, table.false_fail, table.false_pass, table.both_fail) == (3, 1, 1, 5)
    # p_o = 8/10; humans pass 4, critic passes 4: p_e = (4*4 + 6*6)/100 = 0.52;
    # kappa = (0.8 - 0.52) / (1 - 0.52) = 0.28 / 0.48 = 7/12
    assert table.accuracy == pytest.approx(0.8)
    assert table.kappa == pytest.approx(7 / 12)
    assert table.false_pass_rate == pytest.approx(1 / 6)
    assert table.false_fail_rate == pytest.approx(1 / 4)


def test_kappa_is_undefined_when_both_raters_give_one_same_label() -> None:
    assert Agreement.of([(True, True)] * 4).kappa is None
    assert Agreement.of([]).kappa is None and Agreement.of([]).accuracy is None
    opposite = Agreement.of([(True, False), (False, True)])
    assert opposite.kappa == pytest.approx(-1.0)  # p_o = 0, p_e = 1/2
    assert Agreement.of([(True, True)]).false_pass_rate is None  # no human failure to miss


def test_labels_file_errors_name_the_line(tmp_path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"rubric": [{"id": "a", "text": "x y z"}]}\n\n{"artifact": "t"}\n')
    with pytest.raises(UsageProblem, match=r"labels.jsonl line 3: 'labels' should be an object"):
        read_labels(path, None)
    path.write_text('{"rubric": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}\n')
    with pytest.raises(UsageProblem, match="line 1: invalid rubric: .*duplicate criterion id 'a'"):
        read_labels(path, None)
    path.write_text(
        '{"artifact": "t", "labels": {"a": true}}\n{"artifact": "u", "labels": {"a": false}}\n'
    )
    [first, second] = read_labels(path, read_labels_rubric())
    assert (first.index, first.name, second.index, second.name) == (1, "line 1", 2, "line 2")


def test_a_labelled_artifact_may_name_its_family_and_no_other_extra_key(tmp_path) -> None:
    path = tmp_path / "labels.jsonl"
    line = {"artifact": "Paris", "labels": {"a": True}, "family": "degenerate"}
    path.write_text(json.dumps(line) + "\n")
    [example] = read_labels(path, read_labels_rubric())
    assert (example.artifact, example.labels) == ("Paris", {"a": True})
    path.write_text(json.dumps({**line, "kind": "writing"}) + "\n")
    with pytest.raises(UsageProblem, match=r"line 1: unknown key\(s\) 'kind'"):
        read_labels(path, read_labels_rubric())


def read_labels_rubric():
    from critic_loop.grading import checked_rubric

    return checked_rubric([{"id": "a", "text": "x y z"}])


# --- grading ----------------------------------------------------------------------------------


def test_grade_runs_checks_and_the_judge_on_one_artifact(models) -> None:
    rubric = [
        {"id": "clear", "text": "It is clear."},
        {"id": "short", "kind": "word_count", "max": 2},
    ]
    judge = models.script("critic", graded([rubric[0]]))
    verdict = grade("Three words here.", rubric, {"critic_model": "scripted:critic"})
    results = {result.criterion_id: result for result in verdict.results}
    assert (results["clear"].passed, results["clear"].source) == (True, "judge")
    assert (results["short"].passed, results["short"].source) == (False, "check")
    assert judge.calls == 1  # graded although the check failed: every criterion decided
    assert verdict.passed is False


def test_grade_raises_when_the_critic_gives_no_verdict(models) -> None:
    models.script("critic", {"results": [], "feedback": "", "passed": True})
    with pytest.raises(GradingFailed) as failed:
        grade(
            "Text.",
            [{"id": "clear", "text": "It is clear."}],
            {"critic_model": "scripted:critic", "critic_attempts": 1},
        )
    assert "not graded" in failed.value.error and failed.value.rejected


# --- the commands' help -----------------------------------------------------------------------

COMMANDS = ["runs", "show", "stats", "prune", "rules", "forget", "calibrate"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys) -> None:
    assert main([command, "--help"]) == 0
    assert capsys.readouterr().out.startswith(f"Usage: critic-loop {command}")


def test_help_groups_the_options(capsys) -> None:
    main(["run", "--help"])
    run = capsys.readouterr().out
    headings = ["Task and rubric:", "Thread and data:", "Models:", "Rounds and stopping:"]
    headings += ["The judge:", "Limits and budgets:", "Memory:", "Output:"]
    assert [run.index(heading) for heading in headings] == sorted(
        run.index(heading) for heading in headings
    )
    assert run.index("Memory:") < run.index("  --memory-scope") < run.index("Output:")
    main(["demo", "--help"])
    demo = capsys.readouterr().out
    assert "DEMO_SCOPE" not in demo and "memory scope 'demo'" in demo
    main(["stats", "--help"])
    text = capsys.readouterr().out
    assert text.index("Where:") < text.index("--db") < text.index("Output:") < text.index("--plot")
    main(["calibrate", "--help"])
    calibrate = capsys.readouterr().out
    # the critic's settings (every Context field) under the run's sections
    assert calibrate.index("--rubric") < calibrate.index("Models:")
    assert calibrate.index("Models:") < calibrate.index("  --critic-model TEXT")
    assert calibrate.index("The judge:") < calibrate.index("  --judge-mode")
    assert '{"id": "a1", "artifact": "...", "labels": {"clear": true, "short": false}}' in calibrate


HEAVY = {
    "langgraph",
    "langchain",
    "langchain_core",
    "langchain_openai",
    "langchain_google_genai",
    "openai",
    "httpx",
    "matplotlib",
    "psycopg",
}


def _top_level_imports(path: Path, package: str) -> set[str]:
    """Modules a file imports when it is imported (not in functions, not for type checking)."""
    found: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for statement in statements:
            if isinstance(statement, ast.Import):
                found.update(alias.name for alias in statement.names)
            elif isinstance(statement, ast.ImportFrom):
                base = statement.module or ""
                if statement.level:
                    parts = package.split(".")[: len(package.split(".")) - statement.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in statement.names)
            elif isinstance(statement, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(statement.test):
                    visit(statement.body)
                visit(statement.orelse)
            elif isinstance(statement, ast.Try):
                visit(statement.body)

    visit(ast.parse(path.read_text()).body)
    return found


def test_help_imports_no_heavy_library() -> None:
    """Importing the command line (all `--help` needs) reaches none of the heavy libraries."""
    seen: set[str] = set()
    modules: set[str] = set()
    pending = ["critic_loop.cli"]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:  # a name imported from a module, not a module
            continue
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        modules.add(name)
        package = name if spec.submodule_search_locations else name.rpartition(".")[0]
        for imported in _top_level_imports(Path(spec.origin), package):
            top = imported.split(".")[0]
            reached.add(top)
            if top == "critic_loop":
                parts = imported.split(".")
                pending += [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
    assert "critic_loop" in reached and "click" in reached
    assert reached & HEAVY == set()
    # nor the graph, its nodes, or the rubric's models: a mistake in the arguments answers at once
    graph_side = (
        "critic_loop.nodes",
        "critic_loop.graphs",
        "critic_loop.run",
        "critic_loop.state.rubric",
    )
    assert {name for name in modules if name.startswith(graph_side)} == set()


def test_show_gives_a_repeated_drafts_verdict_once() -> None:
    from critic_loop.cli.history import story
    from critic_loop.state.records import Critique, Draft, DraftRef
    from critic_loop.state.verdict import CriterionResult, Verdict

    failing = Verdict(
        results=[CriterionResult(criterion_id="c", passed=False, evidence="no", hint="Say it.")]
    )
    drafts = [Draft(round=n, text="the same text", origin="revision") for n in (1, 2, 3)]
    drafts[0] = drafts[0].model_copy(update={"origin": "first"})
    critiques = [Critique(round=1, verdict=failing)] + [
        Critique(round=n, verdict=failing, duplicate_of=DraftRef(round=1)) for n in (2, 3)
    ]
    values = {
        "task": "t",
        "rubric": [{"id": "c", "text": "x"}],
        "drafts": [d.model_dump() for d in drafts],
        "critiques": [c.model_dump() for c in critiques],
    }
    told = "\n".join(story(Thread("t1", values, updated_at=at(0)), diff=True))
    assert told.count("[FAIL] c (must, judge): no") == 1
    assert told.count("verdict: as round 1's (the same draft: not graded again)") == 2
    assert told.count("(no changes)") == 2
