"""`critic-loop lint-rubric` and the note a run prints at its start for checkable criteria."""

from __future__ import annotations

import json

import pytest

from tests.support.run_history import cli_runner, one_line_error
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

RUBRIC = [
    {"id": "short", "text": "It has at most 40 words."},
    {"id": "closing", "text": 'It ends with "Order now."'},
    {"id": "style", "text": "It is engaging."},
    {"id": "cold", "text": "It says the bottle keeps drinks cold for a day."},
    {"id": "size", "kind": "word_count", "min": 5},
]


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    return cli_runner(tmp_path, monkeypatch, capsys)


def test_lint_rubric_proposes_checks_and_flags_vague_criteria(tmp_path, cli) -> None:
    (tmp_path / "rubric.json").write_text(json.dumps({"task": "Write copy.", "rubric": RUBRIC}))
    done = cli("lint-rubric", "rubric.json")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "rubric.json: 5 criteria, 4 judged by the critic model"
    assert lines[1] == "  short: could be a check: a word count: code counts it"
    assert '    proposal: {"id": "short", "kind": "word_count", "max": 40}' in lines
    assert "    as a flag: --check short=word_count:max=40" in lines
    assert any(line.startswith("  closing: could be a check: how it ends") for line in lines)
    assert any(line.startswith("  style: vague: 'engaging' is taste") for line in lines)
    assert not any("cold" in line or "size" in line for line in lines)
    as_json = cli("lint-rubric", "rubric.json", "--json")
    assert [f["criterion"] for f in json.loads(as_json.stdout)] == ["short", "closing", "style"]


def test_a_rubric_with_nothing_to_change_exits_0_and_bad_input_2(tmp_path, cli) -> None:
    (tmp_path / "fine.json").write_text(json.dumps([RUBRIC[3], RUBRIC[4]]))
    done = cli("lint-rubric", "fine.json")
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "  nothing to change"
    one_line_error(
        cli("lint-rubric", "nope.json"), "RUBRIC 'nope.json': no such file; give the path of"
    )


def test_a_run_notes_at_its_start_the_judged_criteria_code_could_decide(tmp_path, models, cli):
    rubric = [RUBRIC[0], RUBRIC[3]]
    (tmp_path / "task.json").write_text(json.dumps({"task": "Write copy.", "rubric": rubric}))
    models.script("worker", "TrailFlask keeps drinks cold for a day.")
    models.script("critic", graded(rubric))
    done = cli(
        "run", "--input", "task.json", "--worker-model", "scripted:worker",
        "--critic-model", "scripted:critic", "--no-memory",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: criterion 'short' is judged by the critic model, but code could decide it "
        "(a word count: code counts it); see critic-loop lint-rubric"
    ]


def test_with_lint_checks_the_note_says_code_decides(tmp_path, models, cli) -> None:
    rubric = [RUBRIC[0], RUBRIC[3]]
    (tmp_path / "task.json").write_text(json.dumps({"task": "Write copy.", "rubric": rubric}))
    models.script("worker", "TrailFlask keeps drinks cold for a day.")
    models.script("critic", graded([RUBRIC[3]]))
    done = cli(
        "run", "--input", "task.json", "--worker-model", "scripted:worker",
        "--critic-model", "scripted:critic", "--no-memory", "--lint-checks",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: criterion 'short' is decided by code, not by the critic model "
        "(a word count: code counts it; lint_checks)"
    ]
