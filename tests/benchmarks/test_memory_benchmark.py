"""The memory benchmark, end to end, against the scripted OpenAI-compatible server.

The scripted worker follows whatever it is told: a draft meets a family's requirement
only when its prompt carries it, as a recalled rule or as the hint of a failed round.
So with memory off every family task takes two rounds; with memory on the first task of
a family takes two and teaches a rule, and the later ones pass in round 1. The unrelated
task passes at once either way and is given no rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmarks.memory import cli, summarize
from benchmarks.memory.taskset import TaskFileError, load_tasks, quick, sequence
from tests.support.openai_server import (
    Answer,
    Failure,
    ScriptedOpenAIServer,
    Structured,
    Text,
    is_structured_request,
)

QUICK_ORDER = [
    "shop_bottle",
    "meetings_logo",
    "shop_socks",
    "meetings_offsite",
    "haiku_rain",
    "shop_chair",
    "meetings_sales",
]
GENERAL_SHOP_RULE = "End every product description with 'Order now at Tidewater'."


@dataclass
class ObedientModel:
    """Writes drafts that meet a requirement only when the prompt states it; distills."""

    fail: set[str] = field(default_factory=set)
    """Words of tasks whose worker requests are refused (HTTP 400)."""
    prompts: list[str] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> Answer:
        text = "\n".join(str(message.get("content") or "") for message in request["messages"])
        if is_structured_request(request):  # the distiller: generalise the shop's lesson only
            if "Order now at Tidewater" not in text:
                return Structured({"operations": []})
            rule = {
                "action": "add",
                "rule_id": "",
                "text": GENERAL_SHOP_RULE,
                "criteria": ["closing_line"],
                "reason": "the shop's closing line",
            }
            return Structured({"operations": [rule]})
        self.prompts.append(text)
        if any(word in text for word in self.fail):
            return Failure(400, "refused by the test")
        if "Tidewater outdoor shop" in text:
            closing = " Order now at Tidewater." if "Order now at Tidewater" in text else ""
            return Text("A sturdy piece of kit for every trail." + closing)
        if "team meeting" in text:
            if "'Decisions'" in text:
                return Text("# Decisions\nWe chose.\n\n# Action items\n- Do it.")
            return Text("We met and chose.")
        return Text("Rain taps the window\nleaves drift on the cold puddles\nautumn hums softly")


@pytest.fixture
def model() -> ObedientModel:
    return ObedientModel()


@pytest.fixture
def server(model: ObedientModel) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(model) as running:
        yield running


def run(server: ScriptedOpenAIServer, *options: str) -> int:
    return cli.main(["--base-url", server.base_url, "--model", "openai:scripted", *options])


def line(printed: str, label: str) -> list[str]:
    """The cells of the headline table's line that starts with `label`."""
    found = re.search(rf"^\s*{re.escape(label)}\s+(.*)$", printed, re.MULTILINE)
    assert found, label
    return re.split(r"\s{2,}", found.group(1).strip())


def test_memory_on_learns_from_a_family_s_first_task_and_helps_its_later_ones(
    server: ScriptedOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "memory.json"
    assert run(server, "--quick", "--out", str(out)) == 0
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    settings = report["settings"]
    assert settings["task_ids"] == QUICK_ORDER and settings["rounds"] == 3
    assert settings["contexts"]["off"]["memory"] is False
    assert settings["contexts"]["on"]["memory"] is True
    assert settings["contexts"]["on"]["memory_scope"] == "default"  # one scope for all
    assert settings["contexts"]["on"]["worker_max_tokens"] == 1024  # as the CLI picks locally
    assert settings["contexts"]["off"]["candidates"] == "auto"  # the shipped defaults
    assert settings["contexts"]["on"]["candidates"] == "auto"

    rows = {(row["config"], row["task"]): row for row in report["rows"]}
    # interleaved: memory off, then on, for each task in sequence order
    assert [key for key in rows] == [(mode, task) for task in QUICK_ORDER for mode in ("off", "on")]
    for task in QUICK_ORDER:
        off, on = rows[("off", task)], rows[("on", task)]
        assert off["error"] is None and on["error"] is None
        assert off["passed"] and on["passed"]
        assert off["recalled"] == [] and off["distiller_calls"] == 0
        assert off["rounds"] == (1 if task == "haiku_rain" else 2)
    for first in ("shop_bottle", "meetings_logo"):
        assert rows[("on", first)]["rounds"] == 2 and rows[("on", first)]["added"]
        assert rows[("on", first)]["distiller_calls"] == 1
    headings = "Add Markdown headings (lines starting with '#') titled 'Decisions', 'Action items'."
    for later, rule in (
        ("shop_socks", GENERAL_SHOP_RULE),
        ("shop_chair", GENERAL_SHOP_RULE),
        ("meetings_offsite", headings),  # the distiller added nothing: the lesson as it is
        ("meetings_sales", headings),
    ):
        on = rows[("on", later)]
        assert on["rounds"] == 1 and on["distiller_calls"] == 0
        assert [given["text"] for given in on["recalled"]] == [rule]
    assert rows[("on", "haiku_rain")]["recalled"] == []
    assert rows[("on", "shop_bottle")]["lessons"] == ["Include 'Order now at Tidewater'."]

    rules = {rule["text"]: rule for rule in report["rules"]["repeat1"]}
    assert GENERAL_SHOP_RULE in rules
    assert rules[GENERAL_SHOP_RULE]["usage"]["consulted"] == 2

    assert line(printed, "rounds to pass")[:3] == ["2.00", "1.00", "-50%"]
    assert line(printed, "passed in round 1")[:2] == ["0/4 0%", "4/4 100%"]
    assert line(printed, "did worse with memory on") == ["0"]
    assert re.search(
        rf"^1\s+{re.escape(GENERAL_SHOP_RULE)}\s+shop_bottle\s+shop_socks, shop_chair$",
        printed,
        re.MULTILINE,
    )
    assert (
        "recall: 4 rule(s) given to tasks, 4 to the family they were learned in, 0 elsewhere"
        in printed
    )
    assert re.search(r"^1\s+shop_socks\s+shop\s+\+2\s+\+1 r1$", printed, re.MULTILINE)

    assert summarize.main([str(out)]) == 0
    assert capsys.readouterr().out.strip() in printed


def test_errors_are_recorded_and_resume_continues_in_the_same_store(
    server: ScriptedOpenAIServer,
    model: ObedientModel,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "memory.json"
    model.fail = {"summer offsite"}
    assert run(server, "--quick", "--out", str(out)) == 0
    first = json.loads(out.read_text())
    errors = [(row["config"], row["task"]) for row in first["rows"] if row["error"]]
    assert errors == [("off", "meetings_offsite"), ("on", "meetings_offsite")]
    assert "errors (2, left out" in capsys.readouterr().out

    assert run(server, "--quick", "--out", str(out)) == 2  # never overwritten by accident
    assert "--resume" in capsys.readouterr().err

    model.fail = set()
    model.prompts.clear()
    assert run(server, "--quick", "--resume", str(out)) == 0
    # only the failed task ran again: off in 2 rounds (3 first drafts, a revision), on in 1
    assert len(model.prompts) == 5
    resumed = {(row["config"], row["task"]): row for row in json.loads(out.read_text())["rows"]}
    # the memory-on sequence carried on in its store: the rule learned before is recalled
    assert resumed[("on", "meetings_offsite")]["rounds"] == 1
    assert resumed[("on", "meetings_offsite")]["recalled"]

    assert run(server, "--quick", "--rounds", "2", "--resume", str(out)) == 2
    assert "records another experiment" in capsys.readouterr().err
    (out.parent / (out.name + ".stores") / "repeat1-memory-on.sqlite").unlink()
    assert run(server, "--quick", "--resume", str(out)) == 2
    assert "the store of a memory-on sequence is gone" in capsys.readouterr().err


def test_bad_command_lines_are_refused_before_any_model_call(
    server: ScriptedOpenAIServer, model: ObedientModel, tmp_path: Path, capsys
) -> None:
    out = str(tmp_path / "memory.json")
    assert run(server, "--families", "nosuch", "--out", out) == 2
    assert "unknown family 'nosuch'" in capsys.readouterr().err
    assert run(server, "--quick", "--set", "memory=false", "--out", out) == 2
    assert "--set cannot change memory" in capsys.readouterr().err
    assert run(server, "--quick", "--set", "recall_k=-1", "--out", out) == 2
    assert "invalid settings" in capsys.readouterr().err
    assert model.prompts == []


def test_the_task_set_never_tells_a_family_its_requirement(tmp_path: Path) -> None:
    tasks = load_tasks()
    assert len(tasks.families) == 7 and all(len(f.tasks) == 4 for f in tasks.families)
    order = [task.id for task in sequence(tasks)]
    assert len(order) == len(set(order)) == 34  # 28 family tasks, the 6 unrelated
    assert [task.id for task in sequence(quick(tasks))] == QUICK_ORDER
    broken = json.loads(Path(cli.TASKS_FILE).read_text())
    broken["families"][0]["tasks"][1]["task"] += " End it with 'Order now at Tidewater'."
    (tmp_path / "tasks.json").write_text(json.dumps(broken))
    with pytest.raises(TaskFileError, match="shop_socks gives its family's requirement away"):
        load_tasks(tmp_path / "tasks.json")


def test_sequences_run_side_by_side_with_jobs_give_the_same_rows(
    server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert run(server, "--quick", "--out", str(one)) == 0
    assert run(server, "--quick", "--jobs", "2", "--out", str(two)) == 0

    def outcomes(path: Path) -> dict[tuple[str, str], tuple[Any, ...]]:
        rows = json.loads(path.read_text())["rows"]
        return {
            (row["config"], row["task"]): (
                row["passed"],
                row["rounds"],
                [given["text"] for given in row["recalled"]],
            )
            for row in rows
        }

    assert outcomes(two) == outcomes(one) and len(outcomes(one)) == 14
