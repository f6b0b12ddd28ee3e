"""The operator's ceilings, from the environment only (docs/security.md, "Operator ceilings")."""

from __future__ import annotations

from typing import Any

from annotated_types import Ge, Gt
from pydantic import Field, create_model
from pydantic_settings import BaseSettings, SettingsConfigDict

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
