"""The judge benchmark end to end, against the scripted OpenAI-compatible server.

The scripted judge (`DiligentModel`) passes every criterion it is asked about, quoting the
first words of the artifact, so every figure is known in advance: on the quick slice (12
pairs, 5 labelled met), the `verdict` configuration agrees on 5 of 12, every pair labelled
not met a false pass, no false fail, a verdict on all 4 artifacts, one call per
criterion; the default (an extracting judge, criteria the linter decides checked by code)
is asked about 10 of the 12 and gets the two code decides right.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.harness.report import load
from benchmarks.judge import cli, summarize
from benchmarks.judge.summary import summary_json
from tests.support.openai_server import DiligentModel, ScriptedOpenAIServer


@pytest.fixture
def server():
    with ScriptedOpenAIServer(DiligentModel()) as running:
        yield running


def test_the_quick_slice_reports_every_figure(tmp_path, server, capsys) -> None:
    out = tmp_path / "judge.json"
    status = cli.main(
        ["--quick", "--configs", "verdict,rubric,default", "--base-url", server.base_url]
        + ["--model", "openai:scripted", "--out", str(out)]
    )
    assert status == 0
    data = load(out)
    figures = {f["config"]: f for f in summary_json(data)}
    verdict = figures["verdict"]
    assert (verdict["artifacts"], verdict["verdicts"], verdict["n"]) == (4, 4, 12)
    assert verdict["both_pass"] == 5 and verdict["false_pass"] == 7
    assert verdict["false_pass_rate"] == 1.0 and verdict["false_fail_rate"] == 0.0
    assert verdict["calls_per_grade"] == 3.0  # one call per criterion
    assert figures["rubric"]["calls_per_grade"] == 1.0  # one call for the rubric
    assert verdict["tokens_per_grade"] > 0 and verdict["wall_seconds"] > 0
    # the default: the judge copies the artifact's first words, which code takes as
    # evidence, but the seven criteria the linter decides (a question, three lines, naming a
    # season, the language, a docstring, printing, returning) are checked by code
    default = figures["default"]
    assert default["both_pass"] == 5 and default["false_pass"] == 2
    assert default["calls_per_grade"] == 1.25  # 5 calls: seven never reach the judge
    printed = capsys.readouterr().out
    assert "verdict" in printed and "7/7 100%" in printed and "agreement by trap" in printed
    contexts = data["settings"]["contexts"]
    assert contexts["verdict"]["judge_granularity"] == "criterion"
    assert contexts["default"]["judge_mode"] == "extract" and contexts["default"]["lint_checks"]


def test_resume_grades_only_what_is_missing(tmp_path, server) -> None:
    out = tmp_path / "judge.json"
    common = ["--base-url", server.base_url, "--model", "openai:scripted"]
    assert (
        cli.main(["--ids", "haiku_rain", "--configs", "default", *common, "--out", str(out)]) == 0
    )
    before = len(server.requests)
    assert cli.main(["--quick", "--configs", "default", *common, "--resume", str(out)]) == 0
    # three artifacts left, three criteria each; code checks five of them (a question, the
    # language, a docstring, printing, returning)
    assert len(server.requests) - before == 4
    data = json.loads(out.read_text())
    assert sorted(row["task"] for row in data["rows"]) == sorted(
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
