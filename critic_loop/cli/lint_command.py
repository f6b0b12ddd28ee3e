"""`critic-loop lint-rubric RUBRIC`: judged criteria that code could decide, and vague ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from critic_loop.cli.calibrate import _rubric
from critic_loop.errors import UsageProblem


def read_rubric(path: Path) -> list[Any]:
    """Read the criteria of a rubric file, a `{"rubric": ...}` object or a run's input.

    Raises:
        UsageProblem: the file is missing, not JSON, or holds no usable rubric.
    """
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise UsageProblem(f"cannot read {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise UsageProblem(f"{path}: not valid JSON: {error}") from None
    if isinstance(data, dict) and "rubric" in data:
        data = data["rubric"]
    return _rubric(data, str(path))


@click.command("lint-rubric")
@click.argument("rubric", type=click.Path(path_type=Path), metavar="RUBRIC")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def lint_rubric_command(rubric: Path, as_json: bool) -> None:
    """Find judged criteria that code could decide, and criteria too vague to grade.

    RUBRIC is a JSON file: a list of criteria, {"rubric": [...]}, or a run's input. Each
    finding proposes a deterministic check where there is one (as rubric JSON and as a
    --check flag of run). Exit status 1 when something was found.
    """
    from critic_loop.nodes.verifiers.rubric_lint import check_flag, lint_rubric

    criteria = read_rubric(rubric)
    findings = lint_rubric(criteria)
    if as_json:
        click.echo(json.dumps([finding.as_json() for finding in findings], indent=2))
    else:
        judged = sum(not criterion.deterministic for criterion in criteria)
        click.echo(f"{rubric}: {len(criteria)} criteria, {judged} judged by the critic model")
        for finding in findings:
            label = "could be a check" if finding.problem == "checkable" else "vague"
            click.echo(f"  {finding.criterion_id}: {label}: {finding.message}")
            if finding.proposal is not None:
                click.echo(f"    proposal: {json.dumps(finding.proposal)}")
                click.echo(f"    as a flag: {check_flag(finding.proposal)}")
        if not findings:
            click.echo("  nothing to change")
    if findings:
        raise click.exceptions.Exit(1)
