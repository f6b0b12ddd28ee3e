"""What only the operator decides, from the graphs' process environment (never a run's input).

A ceiling is the most a run may ask of a count or limit it sets (docs/security.md, "Operator
ceilings"); the rest are the deployment's policy for client input and its size limits.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from annotated_types import Ge, Gt
from pydantic import BeforeValidator, Field, create_model
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from critic_loop.state.context import Context

CEILING_PREFIX = "CRITIC_LOOP_CEILING_"

CONTEXT_CEILINGS: dict[str, int | float] = {  # capped `Context` fields: their ceiling's default
    "max_iterations": 20,
    "candidates": 4,
    "critic_models": 3,  # the panel's length
    "critic_samples": 5,
    "worker_attempts": 3,
    "critic_attempts": 3,
    "max_retries": 3,
    "worker_max_tokens": 8192,
    "critic_max_tokens": 4096,
    "request_timeout": 600.0,
    "worker_history_rounds": 5,
    "recall_k": 10,
    "max_rules": 200,
    "call_budget": 200,
    "token_budget": 1_000_000,
    "time_budget_seconds": 1800.0,
}


class SandboxCeilings(BaseSettings):
    """The ceilings of a `tests` criterion's sandbox (their bounds are the criterion's)."""

    model_config = SettingsConfigDict(env_prefix=CEILING_PREFIX, extra="ignore")

    test_timeout_seconds: float = Field(default=120.0, gt=0)
    test_memory_mb: int = Field(default=512, ge=64)
    test_max_processes: int = Field(default=8, ge=4)  # a small process pool's, threads included
    test_max_file_mb: int = Field(default=64, ge=1)
    test_max_open_files: int = Field(default=256, ge=32)
    test_work_dir_mb: int = Field(default=256, ge=8)


# each `tests` criterion setting, and the ceiling that caps it
TEST_CEILINGS = {name.removeprefix("test_"): name for name in SandboxCeilings.model_fields}


def _ceiling(name: str, default: float) -> Any:  # bounded below as the field is (else by 1)
    rules = Context.model_fields[name].metadata
    least = next((rule for rule in rules if isinstance(rule, Ge | Gt)), Ge(1))
    bound = {"ge": least.ge} if isinstance(least, Ge) else {"gt": least.gt}
    return (type(default), Field(default=default, **bound))


Ceilings = create_model(
    "Ceilings",
    __base__=SandboxCeilings,
    __doc__="The most a run may ask for, of every count and limit it can set.",
    **{name: _ceiling(name, default) for name, default in CONTEXT_CEILINGS.items()},
)


def variable(ceiling: str) -> str:
    """Return the environment variable that sets `ceiling`."""
    return CEILING_PREFIX + ceiling.upper()


def _split(value: Any) -> Any:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


CommaList = Annotated[list[str], NoDecode, BeforeValidator(_split)]  # comma-separated in the env


class OperatorSettings(BaseSettings):
    """The deployment's policy for client input, and its size limits."""

    model_config = SettingsConfigDict(env_prefix="CRITIC_LOOP_", extra="ignore")

    untrusted_input: bool = Field(
        default=False, description="Treat every run here as an untrusted client's."
    )
    allowed_base_urls: CommaList = Field(
        default_factory=list,
        description="Servers a client may choose with `base_url`, besides the operator's own.",
    )
    allowed_paths: CommaList = Field(
        default_factory=list, description="Directories a client may name files under (empty: none)."
    )
    python_check_modules: CommaList = Field(
        default_factory=list,
        description="Modules (or 'module:function's) a client may name as `python` checks.",
    )
    allow_incomplete_sandbox: bool = Field(
        default=False, description="Let a client's drafted code run in an incomplete sandbox."
    )
    sandbox_memory_mb: int = Field(
        default=1536, ge=1024, description="Memory all the processes of one test run share, MiB."
    )
    sandbox_cgroup: str | None = Field(
        default=None, description="A delegated cgroup v2 directory for the test runs' cgroups."
    )
    shared_memory_scopes: CommaList = Field(
        default_factory=list, description="Memory scopes every authenticated user shares."
    )
    memory_curators: CommaList = Field(default_factory=list, description="Who may edit them.")
    max_rule_chars: int = Field(default=500, ge=50, description="The longest rule recall gives.")
    max_recalled_chars: int = Field(
        default=4_000, ge=200, description="Rule text recalled, in all."
    )
    webhook_hosts: CommaList = Field(default_factory=list, description="Hosts webhooks may call.")
    max_pending_runs: int = Field(default=10, ge=1, description="A user's runs waiting or running.")
    max_crons: int = Field(default=5, ge=0, description="The crons one user may keep.")
    max_task_chars: int = Field(
        default=100_000, ge=1, description="The longest task, in characters."
    )
    max_criteria: int = Field(default=100, ge=1, description="The most criteria in a rubric.")
    max_criterion_chars: int = Field(
        default=50_000, ge=100, description="The largest criterion as JSON (inline tests included)."
    )
    max_draft_chars: int = Field(
        default=200_000, ge=100, description="The longest draft kept; a longer one fails its round."
    )
    max_pattern_chars: int = Field(
        default=1_000, ge=1, description="The longest regular expression in a criterion."
    )
    max_nesting_depth: int = Field(
        default=64, ge=8, le=500, description="How deeply input may nest, in levels."
    )
    max_evidence_chars: int = Field(
        default=2_000, ge=200, description="The longest evidence kept per criterion; longer is cut."
    )
    max_hint_chars: int = Field(
        default=600, ge=100, description="The longest hint or feedback item; longer is cut."
    )
    max_feedback_chars: int = Field(
        default=2_000, ge=200, description="The longest note from the critic to the worker."
    )
    max_critique_chars: int = Field(
        default=16_000, ge=2_000, description="The most text one critique holds; longest items cut."
    )
    ceilings: Ceilings = Field(
        default_factory=Ceilings, description="The most a run may ask for (CRITIC_LOOP_CEILING_*)."
    )
    max_concurrent_tests: int = Field(
        default=1, ge=1, description="Test suites this process runs at once; the others wait."
    )
    judge_profile: str | None = Field(
        default=None,
        description="A judge profile fitted to people's labels (critic-loop calibrate --fit): a "
        "JSON file the critic uses when its model is the one the profile was fitted for.",
    )
    regex_timeout_seconds: float = Field(
        default=1.0, gt=0, le=60, description="Seconds one regular-expression match may run."
    )


@functools.cache
def operator_settings() -> OperatorSettings:
    """Return the operator's settings, read once (`cache_clear()` after changing the env)."""
    return OperatorSettings()
