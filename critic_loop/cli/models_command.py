"""`critic-loop models`: which models a run would use, and the settings that follow them."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from critic_loop.cli.context_options import SectionedCommand, context_options, json_option, option


def _models_report(parameters: dict[str, Any]) -> dict[str, Any]:
    from critic_loop.cli.context_options import context_from_flags, settings_from_flags
    from critic_loop.nodes.models.discovery import names_a_model, server_url, with_available_models
    from critic_loop.nodes.models.profiles import model_profile
    from critic_loop.nodes.verifiers.judge_profile import judge_profile
    from critic_loop.state.context import PROFILE_FIELDS, WORKER_FIELDS

    chosen = settings_from_flags(parameters)
    context = with_available_models(context_from_flags(parameters))
    server = server_url(context.base_url, os.environ)
    found = server is not None and not names_a_model(chosen, os.environ)
    profiles = {
        role: model_profile(getattr(context, f"{role}_model"), found)
        for role in ("worker", "critic")
    }
    settings = {}
    for field in sorted(PROFILE_FIELDS):
        role = "worker" if field in WORKER_FIELDS else "critic"
        if field in chosen or f"CRITIC_LOOP_{field.upper()}" in os.environ:
            source = "your setting"
        elif field in profiles[role].settings:
            source = f"the {role}'s profile ({profiles[role].source})"
        else:
            source = "the default"
        settings[field] = {"value": getattr(context, field), "from": source}
    judge = judge_profile(context.critic_model)
    return {
        "judge_profile": judge and {"path": judge.source, **judge.model_dump(exclude={"model"})},
        "server": server,
        "models": {
            role: {"model": profile.model, "found": found, "profile": profile.source}
            for role, profile in profiles.items()
        },
        "settings": settings,
    }


def _report_lines(report: dict[str, Any]) -> list[str]:
    lines = []
    for role, found in report["models"].items():
        how = f"found at {report['server']}" if found["found"] else "named"
        lines.append(f"{role:7s} {found['model']}  ({how}; profile: {found['profile']})")
    lines.append("settings that follow the models:")
    width = max(len(name) for name in report["settings"])
    for name, setting in report["settings"].items():
        value = json.dumps(setting["value"])
        lines.append(f"  {name.ljust(width)}  {value:14s} from {setting['from']}")
    judge = report["judge_profile"]
    if judge is None:
        lines.append("judge profile: none for the critic model (CRITIC_LOOP_JUDGE_PROFILE)")
    else:
        lines.append(
            f"judge profile: {judge['path']} (fitted on {judge['labels']} labels): "
            f"threshold {judge['threshold']:.2f} on P(met), "
            f"a quotation of the draft worth {judge['quote_weight']:.2f}"
        )
    return lines


@click.command(cls=SectionedCommand, other_section="Run settings (every Context field)")
@option("--model", section="Input", help="One provider:model for every role.")
@json_option("the report")
@context_options
def models(**parameters: Any) -> None:
    """Show the models a run would use and the settings that follow them.

    Given the same flags as run, it says which models the run would use (named, or found
    on the OpenAI-compatible server), the profile of each (a small
    model's, or none), the critic's judge profile (CRITIC_LOOP_JUDGE_PROFILE's, or one shipped
    for it) and, for each setting that follows the model, its value and where it came
    from. A setting you give stands.
    """
    report = _models_report(parameters)
    if parameters["as_json"]:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo("\n".join(_report_lines(report)))
