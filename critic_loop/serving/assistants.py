"""Ready-made assistants for LangGraph server: one per kind of model the operator has.

The presets name the models for the usual setups, never a `base_url`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from critic_loop.nodes.models import discovery
from critic_loop.nodes.models.discovery import GEMINI_MODELS, DiscoveryFailed
from critic_loop.state.context import Context

logger = logging.getLogger(__name__)

GRAPH_ID = "critic_loop"  # the graph the presets run (langgraph.json's name for the loop)

# namespace of the presets' fixed assistant ids
PRESET_NAMESPACE = uuid.UUID("6f1c1b52-9a3e-4c4a-8d61-2f3c1f0a7e10")


@dataclass(frozen=True)
class Preset:
    """A ready-made assistant: its name, what it is for, and the settings it runs with."""

    name: str
    title: str
    description: str
    available: Callable[[Mapping[str, str]], bool]
    settings: Callable[[Mapping[str, str]], dict[str, Any]]


def _local_settings(environ: Mapping[str, str]) -> dict[str, Any]:
    # what a command-line run on the same server gets; settings the environment sets stand
    if discovery.server_url(None, environ) is None:
        raise LookupError("the local preset needs OPENAI_BASE_URL in the server's environment")
    chosen = {name for name in Context.model_fields if f"CRITIC_LOOP_{name.upper()}" in environ}
    return discovery.available_models(dict.fromkeys(chosen), environ)


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="local",
            title="critic-loop (local model)",
            description=(
                "Refine an artifact with the model of this server's local OpenAI-compatible "
                "server (llama.cpp, Ollama, vLLM): it drafts and, one criterion per call, "
                "judges. No API key needed."
            ),
            available=lambda environ: discovery.server_url(None, environ) is not None,
            settings=_local_settings,
        ),
        Preset(
            name="openai",
            title="critic-loop (OpenAI)",
            description=(
                "Refine an artifact with OpenAI's models: a small model drafts, a larger one "
                "judges against the rubric."
            ),
            available=lambda environ: (
                bool(environ.get("OPENAI_API_KEY")) and discovery.server_url(None, environ) is None
            ),
            settings=lambda environ: {},
        ),
        Preset(
            name="gemini",
            title="critic-loop (Gemini)",
            description=(
                "Refine an artifact with Google's Gemini: Gemini Flash drafts, Gemini Pro "
                "judges against the rubric."
            ),
            available=lambda environ: bool(
                environ.get("GOOGLE_API_KEY") or environ.get("GEMINI_API_KEY")
            ),
            settings=lambda environ: dict(GEMINI_MODELS),
        ),
    )
}


def chosen_presets(choice: str, environ: Mapping[str, str]) -> list[Preset]:
    """Return the presets `choice` names (`auto`, `none`, or a comma-separated list).

    Raises:
        ValueError: `choice` names a preset that does not exist.
    """
    choice = choice.strip().lower()
    if choice == "none":
        return []
    if choice in ("", "auto"):
        return [preset for preset in PRESETS.values() if preset.available(environ)]
    names = [name.strip() for name in choice.split(",") if name.strip()]
    unknown = [name for name in names if name not in PRESETS]
    if unknown:
        raise ValueError(
            f"unknown assistant preset(s) {', '.join(unknown)}; "
            f"choose from {', '.join(PRESETS)} (or auto, none)"
        )
    return [PRESETS[name] for name in names]


async def install(
    client: Any, presets: Sequence[Preset], environ: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Create or update each preset's assistant through `client` (a `langgraph_sdk` client).

    Returns the assistants as the server holds them. A preset whose settings cannot be
    worked out (a local server that does not answer) is skipped with a warning.
    """
    installed = []
    for preset in presets:
        try:
            context = await asyncio.to_thread(preset.settings, environ)
        except (LookupError, DiscoveryFailed) as error:
            logger.warning("assistant preset %r skipped: %s", preset.name, error)
            continue
        fields: dict[str, Any] = {
            "context": context,
            "name": preset.title,
            "description": preset.description,
            # made by the server for everyone: every user may read and run it (serving.auth)
            "metadata": {"critic_loop_preset": preset.name, "created_by": "system"},
        }
        assistant_id = str(uuid.uuid5(PRESET_NAMESPACE, f"{GRAPH_ID}/{preset.name}"))
        await client.assistants.create(
            GRAPH_ID, assistant_id=assistant_id, if_exists="do_nothing", **fields
        )
        installed.append(await client.assistants.update(assistant_id, graph_id=GRAPH_ID, **fields))
    return installed
