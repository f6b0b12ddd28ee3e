"""One command-line option per `Context` field, generated from `Context` itself.

Options default to "not given", so a setting left off the command line still comes from
`CRITIC_LOOP_<FIELD>`, else from the field's default.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

import annotated_types
import click
from pydantic import ValidationError
from pydantic.fields import FieldInfo

from critic_loop.errors import UsageProblem
from critic_loop.state.context import MODEL_FIELDS, PROFILE_FIELDS, WORKER_FIELDS, Context

F = TypeVar("F", bound=Callable[..., Any])

FOLLOWS = dict.fromkeys(MODEL_FIELDS, "the configured server or API key")
FOLLOWS |= {
    field: f"the {'worker' if field in WORKER_FIELDS else 'critic'} model"
    for field in PROFILE_FIELDS
}
"""The settings whose default a run settles from its models (docs/models.md)."""

SECTION_STARTS = {
    "worker_model": "Models",
    "max_iterations": "Rounds and stopping",
    "structured_output_method": "The judge",
    "worker_max_tokens": "Limits and budgets",
    "memory": "Memory",
    "prompts_dir": "Prompts",
}
"""The `Context` field each help section of the settings starts at: a section runs, in the
fields' order, to the next one's start, so a new field joins its neighbours' section."""


def option_name(field: str) -> str:
    """Return the flag of a `Context` field: `max_iterations` -> `--max-iterations`."""
    return "--" + field.replace("_", "-")


UNIONS = (typing.Union, types.UnionType)


def _bare(annotation: Any) -> Any:
    members = [m for m in typing.get_args(annotation) if m is not type(None)]
    return (
        members[0] if typing.get_origin(annotation) in UNIONS and len(members) == 1 else annotation
    )


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


class _NumberOrWord(click.ParamType[Any]):
    name = "number-or-word"

    def __init__(self, words: tuple[str, ...], low: int | None, high: int | None) -> None:
        self.words = words
        self.number = click.IntRange(low, high) if (low, high) != (None, None) else click.INT
        self.described = "a whole number" + (
            f" from {low} to {high}" if low is not None and high is not None else ""
        )

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return f"[{'|'.join(self.words)}|N]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in self.words:
            return value
        try:
            return self.number.convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"{value!r} is neither {' nor '.join(self.words)} nor {self.described}")


def _number_or_word(annotation: Any) -> click.ParamType[Any] | None:
    """Return the type of an `Annotated[int, ...] | Literal[...]` field, else None."""
    members = typing.get_args(annotation) if typing.get_origin(annotation) in UNIONS else ()
    words = [str(word) for m in members if typing.get_origin(m) is Literal for word in m.__args__]
    numbers = [typing.get_args(m) or (m,) for m in members if typing.get_origin(m) is not Literal]
    if not words or len(numbers) != 1 or numbers[0][0] is not int:
        return None
    bounds: dict[str, Any] = {}
    for extra in numbers[0][1:]:
        bounds.update(_bounds(extra) if isinstance(extra, FieldInfo) else {})
    return _NumberOrWord(tuple(words), bounds.get("min"), bounds.get("max"))


def _click_type(annotation: Any, info: FieldInfo) -> click.ParamType[Any]:
    mixed = _number_or_word(annotation)
    if mixed is not None:
        return mixed
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
    if name in FOLLOWS:  # no server is asked here: `critic-loop models` does
        shown = f"follows {FOLLOWS[name]} (critic-loop models shows it), else {shown}"
    return f"default: {shown}; env CRITIC_LOOP_{name.upper()}"


def _context_option(name: str, info: FieldInfo, section: str) -> Callable[[F], F]:
    annotation = _bare(info.annotation)
    flag = option_name(name)
    help_text = f"{info.description} [{_default_text(name, info)}]"
    if annotation is bool:
        negative = "--no-" + flag.removeprefix("--")
        return option(f"{flag}/{negative}", name, section=section, default=None, help=help_text)
    if typing.get_origin(annotation) is list:
        item = typing.get_args(annotation)[0]
        return option(
            flag,
            name,
            section=section,
            type=_click_type(item, info),
            multiple=True,
            default=None,
            help=help_text + " Repeat the flag for several.",
        )
    return option(flag, name, section=section, type=_click_type(annotation, info), help=help_text)


def context_options(command: F) -> F:
    """Add one option per `Context` field to a click command, under its section."""
    sections, current = {}, "Settings"
    for name in Context.model_fields:
        current = SECTION_STARTS.get(name, current)
        sections[name] = current
    for name, info in reversed(Context.model_fields.items()):
        command = _context_option(name, info, sections[name])(command)
    return command


def settings_from_flags(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Return the `Context` fields the flags set; `--model` sets the worker's and critic's."""
    chosen = chosen_settings(parameters)
    if parameters.get("model"):
        model = parameters["model"]
        chosen = {"worker_model": model, "critic_model": model, **chosen}
    return chosen


def flag_of(field: str, parameters: Mapping[str, Any]) -> str:
    """Name where the user set `field`: its flag, `--model`, or its environment variable."""
    if parameters.get(field) not in (None, ()):
        return option_name(field)
    if field in ("worker_model", "critic_model") and parameters.get("model"):
        return "--model"
    return f"CRITIC_LOOP_{field.upper()}"


def context_from_flags(
    parameters: Mapping[str, Any], base: Mapping[str, Any] | None = None
) -> Context:
    """Build the `Context` the command line's flags ask for, over `base` and the environment.

    Raises:
        UsageProblem: one line per invalid setting, naming its flag or environment variable.
    """
    try:
        return Context(**{**(base or {}), **settings_from_flags(parameters)})
    except ValidationError as error:
        problems = []
        for item in error.errors():
            field = str(item["loc"][0]) if item["loc"] else "settings"
            message = str(item["msg"]).removeprefix("Value error, ")
            problems.append(f"{flag_of(field, parameters)}: {message}")
        raise UsageProblem("\n".join(dict.fromkeys(problems))) from None


def chosen_settings(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Return the `Context` fields the user gave on the command line (others are left out)."""
    chosen = {}
    for name in Context.model_fields:
        value = parameters.get(name)
        if value is None or value == ():
            continue
        chosen[name] = list(value) if isinstance(value, tuple) else value
    return chosen


DB_HELP = (
    "SQLite file or postgresql:// URL holding the runs and rules "
    "[default: $CRITIC_LOOP_DATABASE_URL, else .critic_loop/critic_loop.sqlite]"
)


class _SectionedOption(click.Option):
    def __init__(self, *args: Any, section: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.section = section


class SectionedCommand(click.Command):
    """A click command whose help lists options under their sections' headings."""

    def __init__(self, *args: Any, other_section: str = "Options", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.other_section = other_section

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the options under their headings (in order of appearance; the others last)."""
        sections: dict[str, list[tuple[str, str]]] = {}
        for parameter in self.get_params(ctx):
            record = parameter.get_help_record(ctx)
            if record is None or not isinstance(parameter, click.Option):
                continue
            heading = getattr(parameter, "section", None) or self.other_section
            sections.setdefault(heading, []).append(record)
        sections[self.other_section] = sections.pop(self.other_section, [])  # listed last
        for heading, records in sections.items():
            if records:
                with formatter.section(heading):
                    formatter.write_dl(records)


def option(*declarations: str, section: str, **settings: Any) -> Callable[[F], F]:
    """Return a click option listed under `section` in a `SectionedCommand`'s help."""
    return click.option(*declarations, cls=_SectionedOption, section=section, **settings)


def db_option(command: F, section: str = "Where") -> F:
    """Add `--db`, the database to read (SQLite file or PostgreSQL URL)."""
    return option("--db", section=section, metavar="FILE|URL", help=DB_HELP)(command)


def json_option(what: str) -> Callable[[F], F]:
    """Return the `--json` switch, printing `what` as JSON instead of text."""
    return option(
        "--json", "as_json", is_flag=True, section="Output", help=f"Print {what} as JSON."
    )
