"""Every notebook runs as-is with no model configured, against its scripted stand-in.

The kernel starts with no API key and no model server in its environment, as a reader's
would: each notebook's first cell must then start the stand-in itself (see
`tests.support.notebook_models`). The checks read what the notebook printed.
"""

import os
from pathlib import Path

import nbformat
import pytest

from critic_loop.nodes.verifiers.checks import sandbox
from tests.support.notebooks import MODEL_VARIABLES, execute, notebooks, stream_text

pytestmark = pytest.mark.integration

STAND_IN = "No model configured: a scripted stand-in model answers at http://127.0.0.1:"

EXPECTED = {
    "quickstart": [
        "round 1: score 0.67  +length +example -contrast",
        "round 2: score 1.00  +length +example +contrast",
        "outcome: passed after 2 round(s)",
        "told the worker after round 1: ['Say how finding a value by key differs",
        "('generate',) critiques so far: 1",
    ],
    "code_task": [
        "round 1: score 0.00  -tests ?docstring",
        "outcome: passed after 2 round(s)",
        "round 1: tests failed: 1 of 4 tests failed: test_even_length.",
        "round 2: tests passed: All 4 tests passed.",
        "told the worker after round 1: ['Fix these: test_even_length: median([4, 1, 3, 2]) "
        "returned 3, expected 2.5']",
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


def test_every_notebook_is_checked_and_committed_without_outputs() -> None:
    assert {path.stem for path in notebooks()} == set(EXPECTED)
    for path in notebooks():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, path.name


@pytest.mark.parametrize("path", notebooks(), ids=lambda path: path.stem)
def test_notebook_runs_as_is_with_no_model_configured(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    expected = [STAND_IN, *EXPECTED[path.stem]]
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

    notebook = execute(path)

    printed = stream_text(notebook)
    assert in_order(printed, expected) == [], printed
    errors = stream_text(notebook, "stderr")
    assert errors == "" or (allowed_stderr and allowed_stderr in errors), errors
