"""`critic-loop assistants`: install the ready-made assistants on a running LangGraph server.

A server started from this project's langgraph.json installs them itself; this is for one
deployed another way, or after its environment changed.
"""

from __future__ import annotations

import os

import click

from critic_loop.errors import UsageProblem


@click.command()
@click.option("--url", required=True, help="The LangGraph server, e.g. http://127.0.0.1:2024.")
@click.option(
    "--presets",
    default="auto",
    show_default=True,
    help="auto (what this shell's environment can run), none, or a list: local,openai,gemini.",
)
@click.option("--api-key", envvar="LANGSMITH_API_KEY", help="The server's API key, if it has one.")
def assistants(url: str, presets: str, api_key: str | None) -> int:
    """Create or update the ready-made assistants (local model, OpenAI, Gemini) on a server.

    Run it with the server's environment: `auto` installs each preset whose key (or local
    model server, asked for its model) this shell has. Installing again updates in place.
    """
    import asyncio

    from langgraph_sdk import get_client

    from critic_loop.serving.assistants import chosen_presets, install

    try:
        chosen = chosen_presets(presets, os.environ)
    except ValueError as error:
        raise UsageProblem(str(error)) from error
    if not chosen:
        raise UsageProblem(
            "no preset to install: this environment has no OPENAI_API_KEY, GOOGLE_API_KEY or "
            "OPENAI_BASE_URL (or --presets none was given)"
        )

    client = get_client(url=url, api_key=api_key)
    installed = asyncio.run(install(client, chosen, os.environ))
    for assistant in installed:
        context = assistant.get("context") or {}
        models = f"worker {context.get('worker_model', 'default')}, critic " + str(
            context.get("critic_model", "default")
        )
        click.echo(f"{assistant['assistant_id']}  {assistant['name']}  ({models})")
    skipped = len(chosen) - len(installed)
    if skipped:
        click.echo(f"{skipped} preset(s) skipped; see the warnings above", err=True)
        return 1
    return 0
