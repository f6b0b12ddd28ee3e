"""The real-model tier: a real model behind an OpenAI-compatible server.

Runs when CRITIC_LOOP_TEST_BASE_URL is set (CRITIC_LOOP_TEST_MODEL names the model; by
default the server's first). `.ci/run` starts a local model for it. Models here may be
small and wrong: tests assert structure and invariants, never wording.
"""

import logging
import os
from collections.abc import Callable
from typing import Any

import pytest

from critic_loop.nodes.models import gateway
from critic_loop.nodes.models.discovery import served_model
from critic_loop.state.context import Context

logger = logging.getLogger("critic_loop.real_model")

SKIP_REASON = (
    "real-model tier: set CRITIC_LOOP_TEST_BASE_URL to an OpenAI-compatible server "
    "(and CRITIC_LOOP_TEST_MODEL); .ci/run starts a local model for it"
)


REAL_MODEL_TIMEOUT = 2400
"""Seconds a real-model test may take (pytest-timeout; the suite's default is 600): a
notebook's runs on a small model on 2 shared cores take up to 15 minutes."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "real_model" in str(item.fspath):
            item.add_marker(pytest.mark.real_model)
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(REAL_MODEL_TIMEOUT))


@pytest.fixture(scope="session")
def real_context() -> Context:
    base_url = os.environ.get("CRITIC_LOOP_TEST_BASE_URL")
    if not base_url:
        if os.environ.get("CRITIC_LOOP_REQUIRE_REAL_MODEL") == "1":
            pytest.fail(SKIP_REASON)
        pytest.skip(SKIP_REASON)
    model = os.environ.get("CRITIC_LOOP_TEST_MODEL") or served_model(base_url)
    if model is None:
        pytest.fail(f"{base_url} lists no model")
    gateway.forget_methods()  # discover the server's structured-output support afresh
    return Context(
        worker_model=f"openai:{model}",
        critic_model=f"openai:{model}",
        base_url=base_url,
        judge_granularity="criterion",
        judge_mode="extract",
        lint_checks=True,
        worker_max_tokens=300,
        critic_max_tokens=400,
        max_iterations=3,
        stall_rounds=2,
        critic_attempts=2,
        temperature=0.7,
    )


@pytest.fixture
def log_events() -> Callable[[str], Callable[[dict[str, Any]], None]]:
    """A progress printer for one task: rounds and verdicts go to the test log."""

    def for_task(task: str) -> Callable[[dict[str, Any]], None]:
        def show(event: dict[str, Any]) -> None:
            if event["event"] == "verdict":
                marks = " ".join(
                    ("skip:" if c["skipped"] else "+" if c["passed"] else "-") + c["id"]
                    for c in event["criteria"]
                )
                logger.info(
                    "[%s] round %s verdict: %s %s",
                    task,
                    event["round"],
                    marks or event["error"],
                    f"score={event['score']}",
                )
            elif event["event"] == "draft":
                logger.info(
                    "[%s] round %s draft: %s characters", task, event["round"], event["characters"]
                )
            elif event["event"] == "recall":
                logger.info("[%s] recalled %d rule(s)", task, len(event["rules"]))

        return show

    return for_task
