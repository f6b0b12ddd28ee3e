"""The command line's last resort for a model: the embedded local model, or one clear line.

`critic-loop demo` and `run` with no model named, no API key and no model server use the
embedded model (`critic_loop.local_model`) when the `local` extra is installed; without
it they stop with one line that names every way forward, the extra's install command
among them (exit 2).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from critic_loop.cli.verbosity import current
from critic_loop.errors import UsageProblem
from critic_loop.nodes.models.discovery import names_a_model, server_url
from critic_loop.state.context import Context
from critic_loop.state.extras import install_command

KEY_VARIABLES = ("OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")
"""API keys that give the command line a hosted model."""


def has_no_model(context: Context) -> bool:
    """Say whether the run needs the embedded model (no model server, and none of ours).

    No model named and no API key; or the embedded model named: a thread that ran on it
    resumes on it.
    """
    from critic_loop.local_model.settings import LocalModelSettings

    environ = os.environ
    if server_url(context.base_url, environ) is not None:
        return False
    if names_a_model(context.model_fields_set, environ) or context.critic_models:
        embedded = f"openai:{LocalModelSettings().alias}"
        return {context.worker_model, context.critic_model, *context.critic_models} == {embedded}
    return not any(environ.get(name) for name in KEY_VARIABLES)


def no_model_message() -> str:
    """Return the one line said when there is no model and no embedded one either."""
    return (
        "no model to run: set OPENAI_API_KEY (or GOOGLE_API_KEY), or OPENAI_BASE_URL to a "
        "model server of yours, or add the embedded local model with: "
        f"{install_command('local')}"
    )


@contextmanager
def _download_bar() -> Iterator[Any]:
    """Yield a progress callback that draws a bar on stderr (nothing with --quiet)."""
    bar: Any = None

    def progress(done: int, total: int | None) -> None:
        nonlocal bar
        if current().quiet:
            return
        if bar is None:
            click.echo("critic-loop: downloading the embedded model (once)", err=True)
            bar = click.progressbar(length=max(total or 0, 1), label="model", file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)

    try:
        yield progress
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


def embedded_model() -> dict[str, Any]:
    """Start the embedded model and return the settings that use it.

    Raises:
        UsageProblem: the `local` extra is not installed, or there is no model file to run
            (one line each, naming what to do).
    """
    from critic_loop import local_model

    if not local_model.is_installed():
        raise UsageProblem(no_model_message())
    settings = local_model.LocalModelSettings()
    if not current().quiet:
        where = settings.file or "the cache"
        click.echo(
            f"critic-loop: no API key or model server set: starting the embedded model "
            f"{settings.alias} (from {where})",
            err=True,
        )
    try:
        with _download_bar() as progress:
            found = local_model.embedded_model_context(settings, progress)
    except (FileNotFoundError, local_model.DownloadFailed) as error:
        raise UsageProblem(
            f"{error}. Set CRITIC_LOOP_LOCAL_MODEL_FILE to a GGUF file on disk to skip the download"
        ) from None
    except local_model.ServerFailed as error:
        raise UsageProblem(str(error)) from None
    if not current().quiet:
        click.echo(f"critic-loop: the embedded model serves at {found['base_url']}", err=True)
    return found
