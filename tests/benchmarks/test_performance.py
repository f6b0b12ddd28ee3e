"""The performance suite's command runs its smallest scenarios and writes a well-formed report.

Timings are not asserted: this machine is shared and noisy. What is checked is that every
system made the same rounds (a scenario raises otherwise), and the report's structure.
"""

import json
import math
from pathlib import Path

import pytest

from benchmarks.performance.__main__ import chosen, main
from benchmarks.performance.report import Figure, render_table
from benchmarks.performance.settings import QUICK, with_overrides

pytestmark = pytest.mark.integration

SMALLEST = [
    "--quick",
    "--only",
    "overhead,growth",
    "--set",
    "overhead_rounds=2",
    "--set",
    "overhead_repeats=1",
    "--set",
    "warmup=0",
    "--set",
    "growth_rounds=3",
]


def test_quick_smallest_scenarios_write_a_report(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report.json"
    assert main([*SMALLEST, "--out", str(out)]) == 0

    report = json.loads(out.read_text())
    assert {"date", "git_commit", "machine", "settings", "figures", "details"} <= set(report)
    assert report["settings"]["quick"] is True
    assert report["settings"]["scenarios"] == ["overhead", "growth"]
    assert report["settings"]["overhead_rounds"] == 2
    figures = {(figure["scenario"], figure["name"]): figure for figure in report["figures"]}
    for figure in figures.values():
        assert {"value", "unit", "baseline", "target", "met", "samples", "medians"} <= set(figure)
    ratio = figures[("overhead@0ms", "critic-loop in memory / plain loop")]
    assert ratio["unit"] == "x" and ratio["target"] == 1.1
    assert ratio["value"] > 0 and ratio["met"] in (True, False)
    assert set(ratio["samples"]) >= {"plain loop", "critic-loop in memory", "critic-loop SQLite"}
    assert all(len(values) == 1 for values in ratio["samples"].values())
    sqlite = figures[("overhead@0ms", "critic-loop SQLite / plain loop")]
    assert sqlite["target"] == 1.3 and sqlite["value"] > 0
    growth = figures[("growth", "worker prompt, round 3 / round 2")]
    assert growth["value"] > 0 and growth["target"] == 1.1
    assert len(report["details"]["growth"]["critic-loop"]["worker"]) == 3

    printed = capsys.readouterr().out
    assert "critic-loop in memory / plain loop" in printed
    assert "met?" in printed and str(out) in printed


def test_the_storage_scenario_reports_bytes_beside_the_minimal_loop(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv("CRITIC_LOOP_TEST_POSTGRES_URL", raising=False)
    out = tmp_path / "report.json"
    sizes = ["storage_rounds_short=2", "storage_rounds_mid=3", "storage_rounds=4"]
    arguments = ["--quick", "--only", "storage", "--out", str(out)]
    assert main([*arguments, *(f"--set={size}" for size in sizes)]) == 0

    report = json.loads(out.read_text())
    figures = {figure["name"]: figure for figure in report["figures"]}
    beyond = figures["SQLite: bytes stored at 4 rounds beyond a 1-round run's / its history"]
    assert beyond["value"] > 0 and beyond["target"] == 3.0
    assert figures["SQLite: bytes stored, 4 rounds / 2 rounds"]["value"] > 1
    assert figures["PostgreSQL"]["skipped"]
    runs = report["details"]["storage"]["sqlite"]["runs"]
    assert [run["rounds"] for run in runs["critic-loop"]] == [1, 2, 3, 4]
    default_lists = runs["minimal LangGraph loop, operator.add lists"]
    delta_lists = runs["minimal LangGraph loop, DeltaChannel lists"]
    assert default_lists[-1]["stored"] > delta_lists[-1]["stored"]  # the default stores more


def test_targets_are_reported_not_enforced() -> None:
    over = Figure("s", "ratio", 1.5, "x", "base", 1.1)
    under = Figure("s", "ratio", 0.9, "x", "base", 1.1)
    none = Figure("s", "count", 3, "count", "base")
    skipped = Figure("s", "x", None, "x", "base", 1.1, skipped="not installed")
    assert (over.met, under.met, none.met, skipped.met) == (False, True, None, None)
    table = render_table([over, under, none, skipped])
    assert "NO" in table and "yes" in table and "skip" in table and "not installed" in table
    assert math.isclose(json.loads(json.dumps(under.as_json()))["value"], 0.9)


def test_settings_and_scenario_names_are_checked() -> None:
    assert with_overrides(QUICK, ["recall_rules=10"]).recall_rules == 10
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        with_overrides(QUICK, ["no_such_setting=1"])
    assert chosen("growth,overhead") == ["overhead", "growth"]
    with pytest.raises(SystemExit):
        chosen("nonsense")
