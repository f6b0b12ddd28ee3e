"""What only the operator decides: what clients may point at, and how big a run may be.

Whoever deploys critic-loop sets these, in the environment of the process that runs the
graphs (`CRITIC_LOOP_<FIELD>`); they are never read from a run's input or context. On
LangGraph server the task, the rubric and the context come from clients: anything in
them that would run code, read a file or choose where requests (and API keys) go is
refused unless these settings allow it. On the command line and from Python the caller
is the operator, and may name such things directly.

Size limits apply to every run, whoever submits it, so one request cannot make the
process validate, store or match unbounded input, and what a round keeps (evidence,
hints, feedback) stays small whatever the checks and models produced (see `bounds`).
Ceilings (`critic_loop.state.ceilings`) bound every count and limit a run can set: a
served client cannot raise them.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from critic_loop.state.ceilings import Ceilings

CommaList = Annotated[list[str], NoDecode]
"""A list given in the environment as comma-separated items."""


class OperatorSettings(BaseSettings):
    """The deployment's policy for client input, and its size limits."""

    model_config = SettingsConfigDict(env_prefix="CRITIC_LOOP_", extra="ignore")

    untrusted_input: bool = Field(
        default=False,
        description=(
            "Treat every run in this process as submitted by an untrusted client (for a "
            "server of your own). Runs under LangGraph server always are."
        ),
    )
    allowed_base_urls: CommaList = Field(
        default_factory=list,
        description=(
            "OpenAI-compatible servers a client may choose with `base_url`, besides the "
            "operator's own OPENAI_BASE_URL / CRITIC_LOOP_BASE_URL."
        ),
    )
    allowed_paths: CommaList = Field(
        default_factory=list,
        description=(
            "Directories under which a client may name files (a test file, a prompts "
            "directory). Empty: clients may name none."
        ),
    )
    python_check_modules: CommaList = Field(
        default_factory=list,
        description=(
            "Modules (or 'module:function' references) whose functions a client may name "
            "as `python` checks, besides the functions registered in code."
        ),
    )
    allow_incomplete_sandbox: bool = Field(
        default=False,
        description=(
            "Let a client's drafted code run where the sandbox is incomplete (no bubblewrap, "
            "or user namespaces refused). Off: such a run is refused before any model call."
        ),
    )
    sandbox_memory_mb: int = Field(
        default=1536,
        ge=1024,
        description=(
            "The most memory all the processes of one test run hold together, in MiB: "
            "a cgroup's limit where the host delegates one, else the per-process limit "
            "times the process limit is kept under it."
        ),
    )
    sandbox_cgroup: str | None = Field(
        default=None,
        description=(
            "A cgroup v2 directory delegated to this process (writable, the memory "
            "controller enabled for its children): each test run gets a cgroup there "
            "whose memory.max is sandbox_memory_mb. Unset: the parent of the process's "
            "own cgroup if it qualifies, else process limits hold the total."
        ),
    )
    shared_memory_scopes: CommaList = Field(
        default_factory=list,
        description=(
            "Memory scopes every user of an authenticated server shares: their runs recall "
            "from and distil into the same rules, and the store API lets every user read "
            "them. Every other scope is each user's own."
        ),
    )
    max_task_chars: int = Field(
        default=100_000, ge=1, description="The longest task, in characters."
    )
    max_criteria: int = Field(default=100, ge=1, description="The most criteria in a rubric.")
    max_criterion_chars: int = Field(
        default=50_000,
        ge=100,
        description="The largest criterion, as JSON (its inline tests and schema included).",
    )
    max_draft_chars: int = Field(
        default=200_000,
        ge=100,
        description="The longest draft kept and graded; a longer one fails its round.",
    )
    max_pattern_chars: int = Field(
        default=1_000, ge=1, description="The longest regular expression in a criterion."
    )
    max_nesting_depth: int = Field(
        default=64,
        ge=8,
        le=500,
        description=(
            "How deeply structures from input may nest (a rubric file, a JSON schema, a JSON "
            "draft a check reads, a served run's input), in levels of lists and objects."
        ),
    )
    max_evidence_chars: int = Field(
        default=2_000,
        ge=200,
        description="The longest evidence kept for one criterion; longer is cut, with a marker.",
    )
    max_hint_chars: int = Field(
        default=600,
        ge=100,
        description="The longest hint (and each feedback item to the worker); longer is cut.",
    )
    max_feedback_chars: int = Field(
        default=2_000,
        ge=200,
        description="The longest note from the critic to the worker; longer is cut.",
    )
    max_critique_chars: int = Field(
        default=16_000,
        ge=2_000,
        description=(
            "The most text one critique holds in all (evidence, hints, note, rejected "
            "answers); past it the longest items are cut further."
        ),
    )
    ceilings: Ceilings = Field(
        default_factory=Ceilings,
        description=(
            "The most a run may ask for, of every count and limit it can set "
            "(CRITIC_LOOP_CEILING_<NAME>, see critic_loop.state.ceilings)."
        ),
    )
    max_concurrent_tests: int = Field(
        default=1,
        ge=1,
        description=(
            "The most test suites (`tests` criteria) this process runs at once; the others "
            "wait. With the test ceilings it bounds the memory all sandboxes can hold."
        ),
    )
    judge_profile: str | None = Field(
        default=None,
        description=(
            "A judge profile fitted to people's labels (critic-loop calibrate --fit): a JSON "
            "file the critic uses when its model is the one the profile was fitted for."
        ),
    )
    regex_timeout_seconds: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="How long one regular-expression match may run before it counts as failed.",
    )

    @field_validator(
        "allowed_base_urls",
        "allowed_paths",
        "python_check_modules",
        "shared_memory_scopes",
        mode="before",
    )
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value


@functools.cache
def operator_settings() -> OperatorSettings:
    """Return the operator's settings, read from the environment once per process.

    Call `operator_settings.cache_clear()` after changing the environment (tests do).
    """
    return OperatorSettings()
