"""The HTTP app langgraph.json mounts (`http.app`): the MCP endpoint and the presets."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator

from langgraph_sdk import get_client
from starlette.applications import Starlette

from critic_loop.serving.assistants import GRAPH_ID, chosen_presets, install
from critic_loop.serving.mcp import routes

logger = logging.getLogger(__name__)

# how long to wait for the server's own API before giving up on installing presets
READY_WAIT_SECONDS = 120.0


async def _install_presets_when_ready() -> None:
    try:
        presets = chosen_presets(os.environ.get("CRITIC_LOOP_ASSISTANTS", "auto"), os.environ)
    except ValueError as error:
        logger.error("CRITIC_LOOP_ASSISTANTS: %s", error)
        return
    if not presets:
        return
    client = get_client(url=None)
    deadline = asyncio.get_running_loop().time() + READY_WAIT_SECONDS
    while True:
        try:
            await client.assistants.search(graph_id=GRAPH_ID, limit=1)
            break
        except Exception as error:  # the API is not up yet (or refuses us)
            if asyncio.get_running_loop().time() > deadline:
                logger.warning("assistant presets not installed: the server API said %s", error)
                return
            await asyncio.sleep(0.5)
    try:
        installed = await install(client, presets, os.environ)
    except Exception as error:
        logger.warning("assistant presets not installed: %s", error)
        return
    logger.info("assistant presets ready: %s", ", ".join(a["name"] for a in installed))


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Install the presets in the background once the server is up."""
    task = asyncio.create_task(_install_presets_when_ready())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


app = Starlette(routes=routes(), lifespan=lifespan)  # the app langgraph.json mounts (`http.app`)
