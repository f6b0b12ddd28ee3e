"""`critic-loop prune`: delete (or compact) finished runs older than a cutoff."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import click

from critic_loop.cli.context_options import SectionedCommand, db_option, json_option, option
from critic_loop.errors import UsageProblem

if TYPE_CHECKING:
    from critic_loop.persistence.retention import PruneReport

UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}

AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*$")

what_option = functools.partial(option, section="What")


def _age(text: str) -> timedelta:
    found = AGE.match(text)
    if found is None:
        raise UsageProblem(
            f"--older-than {text!r}: expected a number and a unit, as in 30d, 12h, 90m or 2w"
        )
    return timedelta(**{UNITS[found.group(2)]: float(found.group(1))})


def _report_lines(report: PruneReport) -> list[str]:
    verb = "would prune" if report.dry_run else "pruned"
    how = {True: "compacted to its result", False: "deleted"}
    lines = [
        f"{run.thread_id}  {run.outcome}  {run.rounds} round(s)  ended "
        f"{run.ended_at.isoformat(timespec='seconds')}  {how[run.kept_result]}"
        for run in report.pruned
    ]
    left = ", ".join(f"{count} {reason}" for reason, count in sorted(report.left.items()))
    lines.append(
        f"{verb} {len(report.pruned)} finished run(s) that ended before "
        f"{report.cutoff.isoformat(timespec='seconds')}" + (f"; left alone: {left}" if left else "")
    )
    return lines


@click.command(cls=SectionedCommand)
@what_option(
    "--older-than",
    "older_than",
    required=True,
    metavar="AGE",
    help="Prune finished runs whose last step is older than this (30d, 12h, 90m, 2w).",
)
@what_option(
    "--keep-results",
    is_flag=True,
    help=(
        "Keep each run's outcome, final draft, open items, task and rubric (its last "
        "checkpoint); drop its drafts, critiques and every earlier checkpoint."
    ),
)
@what_option("--dry-run", is_flag=True, help="List what would be pruned; change nothing.")
@what_option(
    "--vacuum",
    is_flag=True,
    help="Shrink the SQLite file afterwards (waits for other writers; no effect on PostgreSQL).",
)
@db_option
@json_option("the report")
def prune(
    older_than: str,
    keep_results: bool,
    dry_run: bool,
    vacuum: bool,
    db: str | None,
    as_json: bool,
) -> None:
    """Delete (or compact) finished runs older than AGE, to bound the database over time.

    Only runs that ended (an outcome, no step left) before the cutoff are touched; a run
    in progress, stopped mid-way or waiting for a review is never pruned, and rules are
    kept. Safe to run while other runs go on, for example from cron.
    """
    from critic_loop.cli.stored_threads import open_database
    from critic_loop.persistence.retention import prune_runs

    limit = _age(older_than)
    with open_database(db):  # a database that is not there, or cannot be opened, is named
        pass
    report = prune_runs(
        limit, database=db, keep_results=keep_results, dry_run=dry_run, vacuum=vacuum
    )
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(report), indent=2, default=datetime.isoformat))
        return
    click.echo("\n".join(_report_lines(report)))
