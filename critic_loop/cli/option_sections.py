"""Help that groups a command's options under headings, and the options commands share.

click lists every option in one block; a command with dozens of flags (every `Context`
field) reads better with its own options first, under headings, and the generated ones
after. An option made with `option(..., section="Output")` is listed under that heading;
options without one (the generated `Context` flags) go under the command's
`other_section`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

DB_HELP = (
    "SQLite file or postgresql:// URL holding the runs and rules "
    "[default: $CRITIC_LOOP_DATABASE_URL, else .critic_loop/critic_loop.sqlite]"
)


class SectionedOption(click.Option):
    """A click option that names the help section it is listed under."""

    def __init__(self, *args: Any, section: str | None = None, **kwargs: Any) -> None:
        """Make the option; `section` is its heading in the help (None: the command's other)."""
        super().__init__(*args, **kwargs)
        self.section = section


class SectionedCommand(click.Command):
    """A click command whose help lists options under their sections' headings."""

    def __init__(self, *args: Any, other_section: str = "Options", **kwargs: Any) -> None:
        """Make the command; options without a section are listed under `other_section`."""
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
        others = sections.pop(self.other_section, [])
        for heading, records in [*sections.items(), (self.other_section, others)]:
            if records:
                with formatter.section(heading):
                    formatter.write_dl(records)


def option(*declarations: str, section: str, **settings: Any) -> Callable[[F], F]:
    """Return a click option listed under `section` in a `SectionedCommand`'s help."""
    return click.option(*declarations, cls=SectionedOption, section=section, **settings)


def db_option(command: F, section: str = "Where") -> F:
    """Add `--db`, the database to read (SQLite file or PostgreSQL URL)."""
    return option("--db", section=section, metavar="FILE|URL", help=DB_HELP)(command)


def json_option(what: str) -> Callable[[F], F]:
    """Return the `--json` switch, printing `what` as JSON instead of text."""
    return option(
        "--json", "as_json", is_flag=True, section="Output", help=f"Print {what} as JSON."
    )
