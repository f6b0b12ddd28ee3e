"""The configurations compared, as plain `Context` settings, and their checking.

Every configuration runs with the same model as worker and critic, memory off (so tasks are
independent), `on_exhausted="best"` (the run returns its best draft), and the same round
budget; a configuration's own settings come last and win. A configuration that names a
`Context` field the installed critic_loop does not have is refused before anything runs,
with a message naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pydantic import ValidationError

from critic_loop.state.context import Context

CONFIGS: dict[str, dict[str, Any]] = {
    # one worker call with critic-loop's own worker prompt; graded only by the hidden grader
    "single_shot": {"max_iterations": 1, "candidates": 1, "on_stall": "resample"},
    # the plain revision loop: one draft, stop when progress stalls
    "stop": {"candidates": 1, "on_stall": "stop"},
    # one draft, a fresh sample when revising stalls (the defaults until 2026-12)
    "resample": {"candidates": 1, "on_stall": "resample"},
    # critic-loop as it ships: candidates and on_stall "auto", read from the rubric
    "default": {},
    # three candidate drafts in round 1, then revisions and fresh samples to the round cap
    "candidates3": {"candidates": 3, "on_stall": "resample"},
}
"""Each configuration's own `Context` settings, on top of the shared ones."""

DEFAULT_CONFIGS = ("single_shot", "resample", "default", "candidates3")
"""The configurations a run compares unless told otherwise."""

BASELINE = "single_shot"
"""The configuration every other one is compared with."""

HARNESS_FIELDS = frozenset(
    {"worker_model", "critic_model", "base_url", "max_iterations", "memory", "on_exhausted"}
)
"""Shared settings the harness owns (`--model`, `--base-url`, `--rounds`); `--set` may not."""


class ConfigError(ValueError):
    """A configuration is unknown, or names a setting the installed critic_loop lacks."""


@dataclass(frozen=True)
class Configuration:
    """A named configuration and the complete settings its runs use."""

    name: str
    settings: dict[str, Any]
    """The `Context` settings passed to every run (shared ones merged with its own)."""

    def context(self) -> Context:
        """Build the run context (fields left out still come from CRITIC_LOOP_* variables)."""
        return Context(**self.settings)


def critic_loop_version() -> str:
    """Return the installed critic-loop's version, or "unknown"."""
    try:
        return version("critic-loop")
    except PackageNotFoundError:
        return "unknown"


def shared_settings(
    model: str, base_url: str | None, rounds: int, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Return the settings every configuration shares, with `extra` (from `--set`) added.

    Raises:
        ConfigError: `extra` sets a field the harness owns.
    """
    owned = sorted(HARNESS_FIELDS & set(extra or {}))
    if owned:
        raise ConfigError(
            f"--set cannot change {', '.join(owned)}: use --model, --base-url and --rounds"
        )
    return {
        "worker_model": model,
        "critic_model": model,
        "base_url": base_url,
        "max_iterations": rounds,
        "memory": False,
        "on_exhausted": "best",
        **(extra or {}),
    }


def unknown_fields(settings: Mapping[str, Any]) -> list[str]:
    """List the settings that are not fields of the installed critic_loop's `Context`."""
    return [name for name in settings if name not in Context.model_fields]


def resolve(
    names: Sequence[str],
    shared: Mapping[str, Any],
    table: Mapping[str, Mapping[str, Any]] = CONFIGS,
) -> list[Configuration]:
    """Check the named configurations against the installed critic_loop and build them.

    Raises:
        ConfigError: a name is not in `table`, a setting is not a `Context` field of the
            installed critic_loop (the message names it), or a value is invalid.
    """
    unknown_names = [name for name in names if name not in table]
    if unknown_names:
        raise ConfigError(
            f"unknown configuration {', '.join(unknown_names)}; known: {', '.join(table)}"
        )
    if not names:
        raise ConfigError("no configuration to run")
    resolved: list[Configuration] = []
    problems: list[str] = []
    for name in dict.fromkeys(names):
        settings = {**shared, **table[name]}
        missing = unknown_fields(settings)
        if missing:
            source = "its settings name" if set(missing) & set(table[name]) else "--set names"
            problems.append(
                f"configuration {name!r}: {source} {', '.join(map(repr, missing))}, not a "
                f"Context field of the installed critic_loop ({critic_loop_version()}); "
                "update critic_loop, or leave the configuration out (--configs)"
            )
            continue
        configuration = Configuration(name, settings)
        try:
            configuration.context()
        except ValidationError as error:
            problems.append(f"configuration {name!r}: invalid settings: {error}")
            continue
        resolved.append(configuration)
    if problems:
        raise ConfigError("\n".join(problems))
    return resolved
