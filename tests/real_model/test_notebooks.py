"""The notebooks against a real model: each finishes with the shape of its saved outputs.

The kernel gets the real-model tier's server (`OPENAI_BASE_URL`) and its settings for
small models (`CRITIC_LOOP_*`, read by `Context`), so the notebooks take the "model
configured" path. What the model wrote is not checked: only that every run ended with a
declared outcome, and that each cell shows what the committed notebook shows.
"""

import logging
from pathlib import Path

import pytest

from critic_loop.state.context import Context
from tests.support.notebooks import (
    MODEL_VARIABLES,
    execute,
    notebooks,
    outcomes,
    read,
    stream_text,
    structure,
)

logger = logging.getLogger("critic_loop.real_model")

RUNS = {"memory": 2}
"""How many runs a notebook makes, where it makes more than one."""

SETTINGS = (
    "worker_model",
    "critic_model",
    "judge_granularity",
    "judge_mode",
    "lint_checks",
    "worker_max_tokens",
    "critic_max_tokens",
    "stall_rounds",
    "critic_attempts",
    "temperature",
)
"""The tier's `Context` settings handed to the notebooks through the environment."""


@pytest.fixture
def real_model_environment(real_context: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert real_context.base_url is not None
    monkeypatch.setenv("OPENAI_BASE_URL", real_context.base_url)
    for field in SETTINGS:
        monkeypatch.setenv(f"CRITIC_LOOP_{field.upper()}", str(getattr(real_context, field)))


@pytest.mark.parametrize("path", notebooks(), ids=lambda path: path.stem)
def test_notebook_finishes_against_a_real_model(path: Path, real_model_environment) -> None:
    notebook = execute(path, timeout=1800)
    printed = stream_text(notebook)
    logger.info("[%s] printed:\n%s", path.stem, printed)
    assert "Using the model your environment configures." in printed
    assert outcomes(notebook) == RUNS.get(path.stem, 1), printed
    assert structure(notebook) == structure(read(path))
