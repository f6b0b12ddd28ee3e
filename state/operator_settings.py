"""What only the operator decides, from the graphs' process environment (never a run's input)."""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from critic_loop.state.ceilings import Ceilings


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
        description=(
            "A judge profile fitted to people's labels (critic-loop calibrate --fit): a JSON "
            "file the critic uses when its model is the one the profile was fitted for."
        ),
    )
    regex_timeout_seconds: float = Field(
        default=1.0, gt=0, le=60, description="Seconds one regular-expression match may run."
    )


@functools.cache
def operator_settings() -> OperatorSettings:
    """Return the operator's settings, read once (`cache_clear()` after changing the env)."""
    return OperatorSettings()
