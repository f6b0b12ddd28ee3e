"""One command-line option per `Context` field, generated from `Context` itself.

The option's name, type, bounds, choices and help text all come from the field, so the
command line cannot drift from the settings: a field added to `Context` is a flag the
next time the command runs. Options default to "not given", so a setting left off the
command line still comes from `CRITIC_LOOP_<FIELD>`, else from the field's default.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

import annotated_types
import click
from pydantic.fields import FieldInfo

from critic_loop.state.context import Context

F = TypeVar("F", bound=Callable[..., Any])


def option_name(field: str) -> str:
    """Return the flag of a `Context` field: `max_iterations` -> `--max-iterations`."""
    return "--" + field.replace("_", "-")


def _bare(annotation: Any) -> Any:
    """Strip `| None` from an annotation."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [member for member in typing.get_args(annotation) if member is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def _bounds(info: FieldInfo) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            bounds["min"] = item.ge
        elif isinstance(item, annotated_types.Le):
            bounds["max"] = item.le
        elif isinstance(item, annotated_types.Gt):
            bounds.update(min=item.gt, min_open=True)
        elif isinstance(item, annotated_types.Lt):
            bounds.update(max=item.lt, max_open=True)
    return bounds


def _click_type(annotation: Any, info: FieldInfo) -> click.ParamType[Any]:
    if typing.get_origin(annotation) is Literal:
        return click.Choice([str(choice) for choice in typing.get_args(annotation)])
    if annotation is int:
        return click.IntRange(**_bounds(info)) if _bounds(info) else click.INT
    if annotation is float:
        return click.FloatRange(**_bounds(info)) if _bounds(info) else click.FLOAT
    return click.STRING


def _default_text(name: str, info: FieldInfo) -> str:
    default = info.get_default(call_default_factory=True)
    if isinstance(default, bool):
        shown = "on" if default else "off"
    elif default in (None, []):
        shown = "unset"
    else:
        shown = str(default)
    return f"default: {shown}; env CRITIC_LOOP_{name.upper()}"


def context_option(name: str, info: FieldInfo) -> Callable[[F], F]:
    """Return the click option for the `Context` field `name`."""
    annotation = _bare(info.annotation)
    flag = option_name(name)
    help_text = f"{info.description} [{_default_text(name, info)}]"
    if annotation is bool:
        negative = "--no-" + flag.removeprefix("--")
        return click.option(f"{flag}/{negative}", name, default=None, help=help_text)
    if typing.get_origin(annotation) is list:
        item = typing.get_args(annotation)[0]
        return click.option(
            flag,
            name,
            type=_click_type(item, info),
            multiple=True,
            default=None,
            help=help_text + " Repeat the flag for several.",
        )
    return click.option(flag, name, type=_click_type(annotation, info), help=help_text)


def context_options(command: F) -> F:
    """Add one option per `Context` field to a click command."""
    for name, info in reversed(Context.model_fields.items()):
        command = context_option(name, info)(command)
    return command


def chosen_settings(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Return the `Context` fields the user gave on the command line (others are left out)."""
    chosen = {}
    for name in Context.model_fields:
        value = parameters.get(name)
        if value is None or value == ():
            continue
        chosen[name] = list(value) if isinstance(value, tuple) else value
    return chosen
