"""A Temporal worker's settings, and the activity options of each node derived from `Context`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict
from temporalio.common import RetryPolicy

from critic_loop.nodes.memory.propose_rules import DISTILL_ATTEMPTS
from critic_loop.state.context import Context

DEFAULT_TASK_QUEUE = "critic-loop"
RETRY_WAIT_SECONDS = 60.0  # the longest the model client waits between tries (Retry-After)
MARGIN_SECONDS = 30.0  # added to every node's budget: prompts, store round trips, startup


class TemporalSettings(BaseSettings):
    """Where a worker or client finds Temporal, and how the worker runs activities."""

    model_config = SettingsConfigDict(
        env_prefix="CRITIC_LOOP_TEMPORAL_", extra="forbid", use_attribute_docstrings=True
    )

    address: str = "127.0.0.1:7233"
    """The Temporal frontend, as host:port."""
    namespace: str = "default"
    """The Temporal namespace."""
    api_key: SecretStr | None = None
    """An API key for the Temporal service (Temporal Cloud)."""
    tls: bool = False
    """Connect with TLS (always, when an API key is set)."""
    task_queue: str = DEFAULT_TASK_QUEUE
    """The task queue."""
    heartbeat_timeout: float = Field(default=30.0, gt=0, le=3600)
    """Seconds without a heartbeat before a retry."""
    sticky_timeout: float = Field(default=3.0, gt=0, le=600)
    """Seconds a workflow task waits for its last worker."""
    activity_attempts: int = Field(default=3, ge=1, le=20)
    """Tries of a failing node (dead worker, failing model)."""
    retry_initial_interval: float = Field(default=1.0, gt=0)
    """Seconds before a failed node's first retry."""
    retry_max_interval: float = Field(default=30.0, gt=0)
    """The longest wait between two tries of a node."""
    checks_timeout: float = Field(default=900.0, gt=0)
    """Seconds a critique may spend on checks and test suites."""
    store_timeout: float = Field(default=120.0, gt=0)
    """Seconds a memory step may take with the store."""
    shutdown_timeout: float = Field(default=30.0, ge=0)
    """Seconds a stopping worker lets its running nodes finish."""


def unsupported_setting(context: Context) -> str | None:
    """Say why a run with `context` cannot run on Temporal, or None if it can."""
    if context.review != "never":
        return (
            f"review {context.review!r} is not available on Temporal (the LangGraph plugin "
            "does not carry interrupts); run it on LangGraph server or in-process, or set "
            "review to 'never'"
        )
    return None


def model_call_seconds(context: Context) -> float:
    """Return the longest one model request may take, with its client's retries."""
    tries = context.max_retries + 1
    return context.request_timeout * tries + RETRY_WAIT_SECONDS * context.max_retries


def node_budgets(context: Context, settings: TemporalSettings) -> dict[str, float]:
    """Return each activity node's start-to-close budget in seconds."""
    call = model_call_seconds(context)
    store = settings.store_timeout
    budgets = {
        "check_input": store,
        "recall": store + call,  # an embedding provider may be called for the query
        "generate": call * context.worker_attempts,
        "critique": call * context.critic_attempts + settings.checks_timeout,
        "record_rule_usage": store,
        "propose_rules": call * DISTILL_ATTEMPTS + store,
        "consolidate_rules": store + call,  # new rules are embedded
    }
    return {node: seconds + MARGIN_SECONDS for node, seconds in budgets.items()}


def activity_options(context: Context, settings: TemporalSettings) -> dict[str, dict[str, Any]]:
    """Return the Temporal activity options of each activity node (its `metadata`)."""
    retry = RetryPolicy(  # bounded: never Temporal's unlimited default
        initial_interval=timedelta(seconds=settings.retry_initial_interval),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=settings.retry_max_interval),
        maximum_attempts=settings.activity_attempts,
    )
    heartbeat = timedelta(seconds=settings.heartbeat_timeout)
    return {
        node: {
            "start_to_close_timeout": timedelta(seconds=seconds),
            "heartbeat_timeout": heartbeat,
            "retry_policy": retry,
        }
        for node, seconds in node_budgets(context, settings).items()
    }


def fits_worker(run: Context, worker: Context, settings: TemporalSettings) -> str | None:
    """Say why a worker cannot run a run's context, or None (timeouts are fixed at its start)."""
    if (unsupported := unsupported_setting(run)) is not None:
        return unsupported
    allowed = node_budgets(worker, settings)
    needed = node_budgets(run, settings)
    over = [node for node in allowed if needed[node] > allowed[node]]
    if not over:
        return None
    return (
        f"the run's model settings (request_timeout {run.request_timeout:g}, max_retries "
        f"{run.max_retries}, worker_attempts {run.worker_attempts}, critic_attempts "
        f"{run.critic_attempts}) need longer than this worker's activity timeouts allow for "
        f"{', '.join(over)}; start the workers with larger CRITIC_LOOP_REQUEST_TIMEOUT, "
        "CRITIC_LOOP_MAX_RETRIES or attempts, or lower them for the run"
    )
