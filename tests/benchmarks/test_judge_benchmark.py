"""The judge benchmark end to end, against the scripted OpenAI-compatible server.

The scripted judge (`DiligentModel`) passes every criterion it is asked about, quoting the
first words of the artifact, so every figure is known in advance: on the quick slice (12
pairs, 5 labelled met), agreement 5/12, every pair labelled not met a false pass, no false
fail, a verdict on all 4 artifacts, one call per criterion.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.judge import cli, summarize
from benchmarks.judge.report import load, rows_of
from benchmarks.judge.summary import summary_json
from tests.support.openai_server import DiligentModel, ScriptedOpenAIServer


@pytest.fixture
def server():
    with ScriptedOpenAIServer(DiligentModel()) as running:
        yield running


def test_the_quick_slice_reports_every_figure(tmp_path, server, capsys) -> None:
    out = tmp_path / "judge.json"
    status = cli.main(
        ["--quick", "--configs", "default,rubric", "--base-url", server.base_url]
        + ["--model", "openai:scripted", "--out", str(out)]
    )
    assert status == 0
    data = load(out)
    figures = {f["config"]: f for f in summary_json(data["settings"], rows_of(data))}
    default = figures["default"]
    assert (default["artifacts"], default["verdicts"], default["n"]) == (4, 4, 12)
    assert default["both_pass"] == 5 and default["false_pass"] == 7
    assert default["false_pass_rate"] == 1.0 and default["false_fail_rate"] == 0.0
    assert default["calls_per_grade"] == 3.0  # one call per criterion
    assert figures["rubric"]["calls_per_grade"] == 1.0  # one call for the rubric
    assert default["tokens_per_grade"] > 0 and default["wall_seconds"] > 0
    printed = capsys.readouterr().out
    assert "default" in printed and "7/7 100%" in printed and "agreement by trap" in printed
    assert data["settings"]["contexts"]["default"]["judge_granularity"] == "criterion"


def test_resume_grades_only_what_is_missing(tmp_path, server) -> None:
    out = tmp_path / "judge.json"
    common = ["--base-url", server.base_url, "--model", "openai:scripted"]
    assert (
        cli.main(["--ids", "haiku_rain", "--configs", "default", *common, "--out", str(out)]) == 0
    )
    before = len(server.requests)
    assert cli.main(["--quick", "--configs", "default", *common, "--resume", str(out)]) == 0
    assert len(server.requests) - before == 9  # three artifacts left, three criteria each
    data = json.loads(out.read_text())
    assert sorted(row["case"] for row in data["rows"]) == sorted(
        ["haiku_rain", "train_english", "jacket_not_waterproof", "add_prints"]
    )
    assert len(data["settings"]["runs"]) == 2
    assert summarize.main([str(out), "--json"]) == 0


def test_a_resumed_run_must_be_the_same_experiment(tmp_path, server, capsys) -> None:
    out = tmp_path / "judge.json"
    common = ["--base-url", server.base_url, "--ids", "haiku_rain", "--configs", "default"]
    assert cli.main([*common, "--model", "openai:scripted", "--out", str(out)]) == 0
    assert cli.main([*common, "--model", "openai:other", "--resume", str(out)]) == 2
    assert "records another experiment" in capsys.readouterr().err
