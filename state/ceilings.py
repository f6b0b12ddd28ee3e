"""The operator's ceilings: the most a run may ask for, of every count and limit it can set.

Each ceiling is named after the `Context` field it caps (`CRITIC_LOOP_CEILING_CANDIDATES`
caps `candidates`), or, with a `test_` prefix, after the `tests` criterion's setting
(`CRITIC_LOOP_CEILING_TEST_MEMORY_MB` caps `memory_mb`). The operator sets them in the
environment of the process that runs the graphs (or in `langgraph.json`'s `env`); they are
never read from a run's input or context.

How they apply (`critic_loop.nodes.operator_policy`):

- a value nobody chose (a built-in default, or no limit at all, as an unset budget or
  `worker_max_tokens`) is lowered to the ceiling, for every run;
- a served client that asks for more than a ceiling is refused before any model call,
  with one line naming each setting, the ceiling and its variable;
- the operator's own runs (command line, Python) may ask for more, explicitly.

The defaults fit one shared machine (2 cores, a few GiB for sandboxes); see
docs/security.md for the arithmetic.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

CEILING_PREFIX = "CRITIC_LOOP_CEILING_"
"""The environment variables' prefix: CRITIC_LOOP_CEILING_<NAME>."""


class Ceilings(BaseSettings):
    """The most a run may ask for (see the module docstring)."""

    model_config = SettingsConfigDict(env_prefix=CEILING_PREFIX, extra="ignore")

    max_iterations: int = Field(default=20, ge=1, description="The most rounds.")
    candidates: int = Field(default=4, ge=1, description="The most first drafts in round 1.")
    critic_models: int = Field(default=3, ge=1, description="The most models on a judge panel.")
    critic_samples: int = Field(default=5, ge=1, description="The most samples per judge model.")
    worker_attempts: int = Field(
        default=3, ge=1, description="The most worker calls per draft (malformed replies)."
    )
    critic_attempts: int = Field(
        default=3, ge=1, description="The most calls per judge and draft (invalid answers)."
    )
    max_retries: int = Field(
        default=3, ge=0, description="The most times the model client repeats a failed request."
    )
    worker_max_tokens: int = Field(
        default=8192, ge=16, description="The longest draft, in output tokens."
    )
    critic_max_tokens: int = Field(
        default=4096, ge=64, description="The longest judge or distiller answer, in tokens."
    )
    request_timeout: float = Field(
        default=600.0, gt=0, description="The longest a model request may take, in seconds."
    )
    worker_history_rounds: int = Field(
        default=5, ge=1, description="The most earlier drafts the worker sees in full."
    )
    recall_k: int = Field(default=10, ge=0, description="The most rules given to the worker.")
    max_rules: int = Field(default=200, ge=1, description="The most rules a scope keeps.")
    call_budget: int = Field(
        default=200, ge=1, description="The most model calls a run makes (every role)."
    )
    token_budget: int = Field(
        default=1_000_000, ge=1, description="The most tokens (input and output) a run spends."
    )
    time_budget_seconds: float = Field(
        default=1800.0, gt=0, description="The most seconds a run spends drafting and grading."
    )
    test_timeout_seconds: float = Field(
        default=120.0, gt=0, description="The longest a test suite may run, in seconds."
    )
    test_memory_mb: int = Field(
        default=512, ge=64, description="The most memory (address space) per test process, MiB."
    )
    test_max_processes: int = Field(
        default=8,
        ge=4,
        description=(
            "The most processes (threads included) of each sandbox of a test run: a small "
            "process pool's (the sandbox's memory total holds them together)."
        ),
    )
    test_max_file_mb: int = Field(
        default=64, ge=1, description="The largest file a test run may write, in MiB."
    )
    test_max_open_files: int = Field(
        default=256, ge=32, description="The most files each test process may hold open."
    )
    test_work_dir_mb: int = Field(
        default=256, ge=8, description="The size of a test run's working directory, in MiB."
    )


CONTEXT_CEILINGS: tuple[str, ...] = (
    "max_iterations",
    "candidates",
    "critic_models",
    "critic_samples",
    "worker_attempts",
    "critic_attempts",
    "max_retries",
    "worker_max_tokens",
    "critic_max_tokens",
    "request_timeout",
    "worker_history_rounds",
    "recall_k",
    "max_rules",
    "call_budget",
    "token_budget",
    "time_budget_seconds",
)
"""The `Context` fields with a ceiling of the same name (`critic_models`: its length)."""

TEST_CEILINGS: dict[str, str] = {
    "timeout_seconds": "test_timeout_seconds",
    "memory_mb": "test_memory_mb",
    "max_processes": "test_max_processes",
    "max_file_mb": "test_max_file_mb",
    "max_open_files": "test_max_open_files",
    "work_dir_mb": "test_work_dir_mb",
}
"""Each `tests` criterion setting, and the ceiling that caps it."""

UNCAPPED_CONTEXT_FIELDS: dict[str, str] = {
    "temperature": "a sampling setting, not an amount",
    "critic_temperature": "a sampling setting, not an amount",
    "sample_temperature": "a sampling setting, not an amount",
    "pass_threshold": "a quality bar, not an amount",
    "critic_min_agreement": "a quality bar, not an amount: it makes no call more",
    "stall_rounds": "it can end a run sooner, never later than max_iterations",
    "sample_budget": "fresh drafts are worker calls, bounded by call_budget and max_iterations",
    "recall_min_relevance": "a relevance floor, not an amount: recall_k bounds the rules given",
}
"""Numeric `Context` fields without a ceiling, and why none is needed."""


def variable(ceiling: str) -> str:
    """Return the environment variable that sets `ceiling`."""
    return CEILING_PREFIX + ceiling.upper()
