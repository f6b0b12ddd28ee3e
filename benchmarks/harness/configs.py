"""Configurations: named `Context` settings, checked against the installed critic_loop."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pydantic import ValidationError

from critic_loop import Context


class ConfigError(ValueError):
    """A configuration is unknown, or names a setting the installed critic_loop lacks."""


@dataclass(frozen=True)
class Configuration:
    """A named configuration and the complete settings its runs use."""

    name: str
    settings: dict[str, Any]
    """The shared settings merged with the configuration's own (which win)."""

    def context(self) -> Context:
        """Build the run context (fields left out still come from CRITIC_LOOP_* variables)."""
        return Context(**self.settings)


def critic_loop_version() -> str:
    """Return the installed critic-loop's version, or "unknown"."""
    try:
        return version("critic-loop")
    except PackageNotFoundError:
        return "unknown"


def shared(
    extra: Mapping[str, Any], owned: Collection[str], flags: str, **settings: Any
) -> dict[str, Any]:
    """Return `settings` with `extra` (from `--set`) added, unless it sets an `owned` field.

    Raises:
        ConfigError: `extra` sets a field the harness owns (`flags` says which flags do).
    """
    clash = sorted(set(owned) & set(extra))
    if clash:
        raise ConfigError(f"--set cannot change {', '.join(clash)}: use {flags}")
    return {**settings, **extra}


def resolve(
    names: Sequence[str], shared: Mapping[str, Any], table: Mapping[str, Mapping[str, Any]]
) -> list[Configuration]:
    """Check the named configurations against the installed critic_loop and build them.

    Raises:
        ConfigError: a name is not in `table`, a setting is not a `Context` field of the
            installed critic_loop (the message names it), or a value is invalid.
    """
    unknown = [name for name in names if name not in table]
    if unknown:
        raise ConfigError(f"unknown configuration {', '.join(unknown)}; known: {', '.join(table)}")
    if not names:
        raise ConfigError("no configuration to run")
    resolved, problems = [], []
    for name in dict.fromkeys(names):
        configuration = Configuration(name, {**shared, **table[name]})
        missing = [key for key in configuration.settings if key not in Context.model_fields]
        if missing:
            source = "its settings name" if set(missing) & set(table[name]) else "--set names"
            problems.append(
                f"configuration {name!r}: {source} {', '.join(map(repr, missing))}, not a "
                f"Context field of the installed critic_loop ({critic_loop_version()}); "
                "update critic_loop, or leave the configuration out (--configs)"
            )
            continue
        try:
            configuration.context()
        except ValidationError as error:
            problems.append(f"configuration {name!r}: invalid settings: {error}")
            continue
        resolved.append(configuration)
    if problems:
        raise ConfigError("\n".join(problems))
    return resolved
