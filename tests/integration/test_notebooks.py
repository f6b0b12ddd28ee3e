"""Every notebook is committed with its outputs, and runs as-is to the same structure.

The notebooks' saved outputs come from a whole run (`make notebooks`: on the embedded
local model). Here each runs
in a fresh kernel against a scripted stand-in model (`tests.support.notebook_models`),
started by the test and handed to the kernel as `OPENAI_BASE_URL`, as a reader's own
server would be: the notebook takes its "model configured" path. The checks read what it
printed, and compare its shape with the saved outputs (not their wording).
"""

import os
from pathlib import Path

import pytest

from critic_loop.sandbox import isolation as sandbox
from tests.support.notebook_models import start_stand_in
from tests.support.notebooks import (
    EMBEDDED,
    MODEL_VARIABLES,
    execute,
    notebooks,
    outcomes,
    printed_models,
    read,
    stated_models,
    stream_text,
    structure,
)

pytestmark = pytest.mark.integration

CONFIGURED = "Using the model your environment configures."

EXPECTED = {
    "quickstart": [
        "3 criteria the worker never sees: length, example, contrast",
        "round 1: score 0.67  +length +example -contrast",
        "round 2: score 1.00  +length +example +contrast",
        "outcome: passed after 2 round(s)",
        # a failed judged criterion, told to the worker as what to do
        "told the worker after round 1: ['Say how looking something up differs from searching a"
        " list.']",
        "('generate',) critiques so far: 1",
    ],
    "code_task": [
        "round 1: score 0.00  -tests",
        "outcome: passed after 2 round(s)",
        "round 1: tests failed: 1 of 5 tests failed: test_an_empty_list_is_an_error.",
        "round 2: tests passed: All 5 tests passed.",
        "told the worker after round 1: ['Fix these: test_an_empty_list_is_an_error: "
        "median([]) raised IndexError; it should raise ValueError']",
    ],
    "memory": [
        "recalled 0 rule(s)",
        "outcome: passed after 2 round(s)",
        "memory: 1 rule(s) added",
        "rule: Always close a welcome message with what to bring and to check.",
        "learned in 'hiking' (passed)",
        "recalled 1 rule(s)",
        "recalled: Always close a welcome message with what to bring and to check.",
        "outcome: passed after 1 round(s)",
        "memory: nothing distilled (nothing to learn",
        "consulted by 1 run(s), 1 of them passed",
    ],
}
"""What each notebook must print, in this order, when its stand-in answers."""


def in_order(text: str, expected: list[str]) -> list[str]:
    """The expected lines not found in `text` after the ones before them."""
    missing, position = [], 0
    for line in expected:
        found = text.find(line, position)
        if found < 0:
            missing.append(line)
        else:
            position = found + len(line)
    return missing


@pytest.mark.parametrize("path", notebooks(), ids=lambda path: path.stem)
def test_every_notebook_is_committed_with_the_outputs_of_a_real_run(path: Path) -> None:
    assert {path.stem for path in notebooks()} == set(EXPECTED)
    saved = read(path)
    for cell in saved.cells:
        if cell.cell_type == "code":
            assert cell.outputs and cell.execution_count is not None, cell.source[:60]
            assert all(output["output_type"] != "error" for output in cell.outputs)
    printed = stream_text(saved)
    assert EMBEDDED in printed or CONFIGURED in printed, printed
    assert outcomes(saved) == (2 if path.stem == "memory" else 1), printed


@pytest.mark.parametrize("path", notebooks(), ids=lambda path: path.stem)
def test_each_notebook_says_truly_which_models_made_its_saved_outputs(path: Path) -> None:
    saved = read(path)
    stated = stated_models(saved)
    assert stated is not None, "no '**Saved outputs:** worker `...`, critic `...`, ...' line"
    worker, critic, where = stated
    assert printed_models(saved) == (worker, critic)
    assert "scripted" not in worker + critic  # the tests' stand-in never makes saved outputs
    assert (where == "the embedded local model") == (EMBEDDED in stream_text(saved)), where


@pytest.mark.parametrize("path", notebooks(), ids=lambda path: path.stem)
def test_notebook_runs_as_is_and_shows_what_its_saved_outputs_show(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    expected = [CONFIGURED, *EXPECTED[path.stem]]
    allowed_stderr = ""
    if path.stem == "code_task":
        found = sandbox.isolation()
        if found.complete:
            expected.insert(1, f"sandbox: complete ({found.mode})")
        elif os.environ.get(sandbox.REQUIRE_VARIABLE) == "1":  # the notebook would refuse
            pytest.fail(f"incomplete sandbox here: {found.reason}; {'; '.join(found.missing)}")
        else:  # tests still run, with what isolation there is, and say what is missing
            expected.insert(1, "sandbox: incomplete")
            allowed_stderr = "The sandbox for drafted code is incomplete"

    stand_in = start_stand_in(path.stem)
    try:
        monkeypatch.setenv("OPENAI_BASE_URL", stand_in.base_url)
        notebook = execute(path)
    finally:
        stand_in.stop()

    printed = stream_text(notebook)
    assert in_order(printed, expected) == [], printed
    errors = stream_text(notebook, "stderr")
    assert errors == "" or (allowed_stderr and allowed_stderr in errors), errors
    assert structure(notebook) == structure(read(path))
    assert outcomes(notebook) == outcomes(read(path))
