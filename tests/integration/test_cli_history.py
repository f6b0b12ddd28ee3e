"""`critic-loop runs`, `show` and `stats` on a database of real runs, driven by `main(argv)`."""

from __future__ import annotations

import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from critic_loop.state.extras import install_command
from tests.support.rubrics import TASK
from tests.support.run_history import cli_runner, make_history, one_line_error

pytestmark = pytest.mark.integration


@dataclass
class History:
    db: str
    threads: list[str]


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> History:
    db = str(tmp_path_factory.mktemp("history") / "runs.sqlite")
    return History(db, make_history(db))


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    return cli_runner(tmp_path, monkeypatch, capsys)


# --- runs ---------------------------------------------------------------------------------


def test_runs_lists_threads_newest_first(history, cli) -> None:
    done = cli("runs", "--db", history.db)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split()[:3] == ["THREAD", "OUTCOME", "ROUNDS"]
    assert [row.split()[0] for row in rows] == history.threads[::-1]
    cells = {row.split()[0]: row.split() for row in rows}
    assert cells["t-pass"][1:3] == ["passed", "2"]
    assert cells["t-exhausted"][1:3] == ["exhausted", "2"]
    assert cells["t-unfinished"][1:3] == ["unfinished", "0"]
    assert "other" in cells["t-exhausted"]
    assert rows[-1].endswith(TASK)


def test_runs_json_parses_back_with_times(history, cli) -> None:
    done = cli("runs", "--db", history.db, "--json", "--limit", "3")
    assert done.returncode == 0, done.stderr
    listed = done.json
    assert [run["thread_id"] for run in listed] == ["t-unfinished", "t-recall", "t-candidates"]
    unfinished, recall, _ = listed
    assert unfinished["outcome"] is None and unfinished["finished"] is False
    assert unfinished["ended_at"] is None and unfinished["started_at"] is not None
    assert recall["outcome"] == "passed" and recall["rounds"] == 1
    assert recall["scope"] == "default"
    assert recall["started_at"] <= recall["ended_at"] == recall["updated_at"]
    assert recall["task"] == TASK


def test_runs_on_an_empty_database_says_so(tmp_path, cli) -> None:
    from critic_loop.persistence import open_persistence

    with open_persistence(tmp_path / "empty.sqlite"):
        pass
    done = cli("runs", "--db", str(tmp_path / "empty.sqlite"))
    assert done.returncode == 0
    assert done.stdout.startswith("no runs in ")
    assert cli("runs", "--db", str(tmp_path / "empty.sqlite"), "--json").json == []


def test_the_database_comes_from_the_environment_too(history, cli, monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_DATABASE_URL", history.db)
    done = cli("runs", "--json")
    assert len(done.json) == len(history.threads)


def test_a_missing_database_is_a_one_line_error(cli) -> None:
    one_line_error(cli("runs", "--db", "nowhere.sqlite"), "no database at nowhere.sqlite")
    assert not Path("nowhere.sqlite").exists()  # reading never creates a database


def test_a_file_that_is_not_a_database_is_a_one_line_error(tmp_path, cli) -> None:
    (tmp_path / "notes.sqlite").write_text("not a database\n" * 100)
    one_line_error(cli("runs", "--db", "notes.sqlite"), "cannot open notes.sqlite")


# --- show ---------------------------------------------------------------------------------


def test_show_tells_the_run_round_by_round(history, cli) -> None:
    done = cli("show", "t-pass", "--db", history.db)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    lines = text.splitlines()
    assert lines[0] == "thread t-pass: passed after 2 round(s)"
    assert "=== round 1" in text and "=== round 2" in text
    assert "--- draft, round 1 (first draft, 9 characters" in text
    assert "first try" in lines
    assert (
        "verdict: 2/3 criteria passed, must 2/3, weighted score 0.67; failing: tone (must)" in text
    )
    assert '  [pass] length (must, judge): It says "first try".' in lines
    assert "  [FAIL] tone (must, judge): evidence for tone" in lines
    assert "         hint: Define every term you use." in lines
    assert "feedback to the worker:" in lines and "  - Define every term you use." in lines
    assert "--- draft, round 2 (revision of round 1" in text
    assert "outcome: passed after 2 round(s) (thread t-pass)" in text
    assert "  why: every must criterion passed" in text
    assert lines[-2:] == ["second try", "with a second line"]  # the final draft ends it


def test_show_diff_shows_each_revision_against_the_draft_it_revises(history, cli) -> None:
    done = cli("show", "t-pass", "--db", history.db, "--diff")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("--- round 1")
    assert lines[start : start + 5] == [
        "--- round 1",
        "+++ round 2",
        "@@ -1 +1,2 @@",
        "-first try",
        "+second try",
    ]
    assert lines[start - 1].endswith("; changes ---")


def test_show_names_candidates_and_unfinished_runs(history, cli) -> None:
    candidates = cli("show", "t-candidates", "--db", history.db).stdout
    assert "--- draft, round 1 (first draft" in candidates
    assert "--- draft, round 1, candidate 2 (first draft" in candidates
    unfinished = cli("show", "t-unfinished", "--db", history.db)
    assert unfinished.returncode == 0
    assert unfinished.stdout.startswith("thread t-unfinished: unfinished after 0 round(s)")
    assert "never graded\n(not graded yet)" in unfinished.stdout
    assert "run it again with --thread-id t-unfinished" in unfinished.stdout


def test_show_json_is_the_threads_values(history, cli) -> None:
    shown = cli("show", "t-pass", "--db", history.db, "--json").json
    assert shown["thread_id"] == "t-pass" and shown["finished"] is True
    values = shown["values"]
    assert values["outcome"] == "passed" and values["final"] == "second try\nwith a second line"
    assert [d["text"] for d in values["drafts"]] == ["first try", "second try\nwith a second line"]
    assert values["critiques"][0]["verdict"]["results"][2]["hint"] == "Define every term you use."
    assert values["feedback"][0]["hints"] == [  # the criterion as an instruction, then the hint
        "Make sure the answer is written for a beginner audience.",
        "Define every term you use.",
    ]
    assert set(shown["round_seconds"]) == {"1", "2"}
    assert all(seconds >= 0 for seconds in shown["round_seconds"].values())
    assert shown["started_at"] <= shown["ended_at"]


def test_show_an_unknown_thread_is_a_one_line_error(history, cli) -> None:
    one_line_error(cli("show", "nope", "--db", history.db), "no run with thread id 'nope'")


# --- stats --------------------------------------------------------------------------------


def test_stats_count_outcomes_rounds_and_criteria(history, cli) -> None:
    figures = cli("stats", "--db", history.db, "--json").json
    assert figures["runs"] == 4 and figures["unfinished"] == 1
    assert figures["outcomes"] == {
        "passed": 3,
        "stalled": 0,
        "exhausted": 1,
        "verifier_error": 0,
        "infeasible": 0,
        "accepted": 0,
        "cancelled": 0,
    }
    # passed in 2, 1 and 1 rounds: median 1; nearest-rank p90 is the 3rd of 3 (ceil(2.7))
    rounds = figures["rounds_to_pass"]
    assert (rounds["count"], rounds["median"], rounds["p90"]) == (3, 1, 2)
    assert rounds["histogram"] == {"1": 2, "2": 1}
    tone = figures["criteria"]["tone"]
    # every final verdict passes tone: t-exhausted's final draft is round 2, which fixed tone
    # and kept what round 1 passed
    assert (tone["final_verdicts"], tone["passed"]) == (4, 4)
    # round 1 failed tone in t-pass and t-exhausted (t-candidates' best candidate passed)
    assert (tone["failed_first"], tone["then_passed"]) == (2, 2)
    example = figures["criteria"]["example"]
    assert (example["passed"], example["failed_first"]) == (3, 1)  # t-exhausted never fixed it
    tokens = figures["tokens"]
    assert tokens["rounds"] == 2 + 2 + 1 + 1
    assert tokens["worker_output"] > 0 and tokens["critic_input"] > 0
    assert tokens["per_round"]["total"] > 0
    assert figures["seconds_per_round"]["count"] == 6
    assert figures["score_by_round"][0]["round"] == 1
    assert figures["score_by_round"][0]["runs"] == 4  # every run reached round 1
    assert figures["score_by_round"][1]["runs"] == 2  # two of them went on to round 2


def test_every_checkpoint_of_a_run_says_which_invocation_wrote_it(history) -> None:
    from critic_loop.cli.stored_threads import all_threads
    from critic_loop.persistence import open_persistence

    with open_persistence(history.db) as persistence:
        threads = all_threads(persistence.checkpointer)
    for thread in threads:
        assert thread.line and all(step.run for step in thread.line), thread.thread_id


def test_stats_text_and_scope(history, cli) -> None:
    done = cli("stats", "--db", history.db)
    assert done.returncode == 0, done.stderr
    assert "finished runs: 4 (unfinished, not counted: 1)" in done.stdout
    assert "outcomes: passed 3, stalled 0, exhausted 1" in done.stdout
    assert "rounds to pass: median 1, p90 2" in done.stdout
    assert "time per round: mean" in done.stdout
    assert "best score by round (mean over the runs that reached it): 1: " in done.stdout
    assert "(4 runs), 2: " in done.stdout and "(2 runs)" in done.stdout
    other = cli("stats", "--db", history.db, "--scope", "other", "--json").json
    assert other["runs"] == 1 and other["outcomes"]["exhausted"] == 1


def test_stats_plot_writes_a_png(history, cli, tmp_path) -> None:
    done = cli("stats", "--db", history.db, "--plot", "runs.png")
    assert done.returncode == 0, done.stderr
    png = (tmp_path / "runs.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert 10_000 < len(png) < 2_000_000
    assert done.stdout.splitlines()[-1] == "plot: runs.png"


def test_stats_plot_without_matplotlib_names_the_extra(history, cli, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    done = cli("stats", "--db", history.db, "--plot", "runs.png")
    one_line_error(done, f"add it with: {install_command('plot')}")
    assert not Path("runs.png").exists()


def test_stats_plot_with_no_finished_runs_is_an_error(history, cli) -> None:
    done = cli("stats", "--db", history.db, "--scope", "nobody", "--plot", "runs.png")
    one_line_error(done, "nothing to plot: no finished runs in scope 'nobody'")


# --- PostgreSQL ---------------------------------------------------------------------------


def test_runs_show_and_stats_on_postgresql(postgres_url, cli) -> None:
    tag = f"-{uuid.uuid4().hex[:8]}"
    threads = make_history(postgres_url, tag)
    listed = {
        run["thread_id"]: run
        for run in cli("runs", "--db", postgres_url, "--limit", "0", "--json").json
    }
    assert {thread: listed[thread]["outcome"] for thread in threads} == {
        f"t-pass{tag}": "passed",
        f"t-exhausted{tag}": "exhausted",
        f"t-candidates{tag}": "passed",
        f"t-recall{tag}": "passed",
        f"t-unfinished{tag}": None,
    }
    assert listed[f"t-pass{tag}"]["scope"] == f"main{tag}"
    shown = cli("show", f"t-pass{tag}", "--db", postgres_url, "--diff")
    assert shown.returncode == 0, shown.stderr
    assert "-first try\n+second try" in shown.stdout
    assert cli("show", f"t-pass{tag}", "--db", postgres_url, "--json").json["values"]["final"]
    figures = cli("stats", "--db", postgres_url, "--scope", f"main{tag}", "--json").json
    assert (figures["runs"], figures["unfinished"]) == (3, 1)  # pass, candidates, recall
    assert figures["seconds_per_round"]["count"] == 4
    one_line_error(cli("show", f"nope{tag}", "--db", postgres_url), f"'nope{tag}'")


def test_the_postgresql_url_can_come_from_the_environment(postgres_url, cli, monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_DATABASE_URL", postgres_url)
    assert isinstance(cli("runs", "--json").json, list)
    one_line_error(
        cli("runs", "--db", "postgresql://nobody@127.0.0.1:9/none"),
        "cannot open the PostgreSQL database",
    )
