"""The embedded local model, for machines with no API key and no model server.

With the `local` extra, `critic-loop demo` and `run` fall back to it (`settings`).
"""

from __future__ import annotations

import atexit
import importlib.util
import threading
from pathlib import Path
from typing import Any

from critic_loop.local_model.download import DownloadFailed as DownloadFailed
from critic_loop.local_model.download import Progress, download
from critic_loop.local_model.server import LocalModelServer
from critic_loop.local_model.server import ServerFailed as ServerFailed
from critic_loop.local_model.settings import LocalModelSettings as LocalModelSettings
from critic_loop.nodes.models.profiles import model_profile, profile_settings

# what `python -m llama_cpp.server` imports: llama-cpp-python and its `server` extra
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
SERVER_SETTINGS = {"structured_output_method": "function_calling"}  # it refuses json_schema

_started: list[LocalModelServer] = []
_starting = threading.Lock()


def is_installed() -> bool:
    """Say whether the `local` extra is installed (without importing it)."""
    return all(importlib.util.find_spec(name) is not None for name in SERVER_MODULES)


def model_file(settings: LocalModelSettings, progress: Progress | None = None) -> Path:
    """Return the model file: the one the settings name, else the cached download.

    Raises:
        FileNotFoundError: `CRITIC_LOOP_LOCAL_MODEL_FILE` names no file.
        DownloadFailed: the download failed or its sha256 does not match.
    """
    if settings.file is not None:
        if not settings.file.is_file():
            raise FileNotFoundError(
                f"CRITIC_LOOP_LOCAL_MODEL_FILE {str(settings.file)!r}: no such file; name a "
                "GGUF model file, or unset it to download the default model"
            )
        return settings.file
    name = settings.url.rstrip("/").rsplit("/", 1)[-1] or "model.gguf"
    return download(settings.url, settings.cache_dir / name, settings.sha256, progress)


def embedded_model_context(
    settings: LocalModelSettings | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """Start the embedded model (once per process, until it exits) and return its run settings.

    Raises:
        FileNotFoundError, DownloadFailed: there is no model file to run.
        ServerFailed: the server did not start.
    """
    settings = settings or LocalModelSettings()
    with _starting:
        running = next((server for server in _started if server.running), None)
        if running is None:
            path = model_file(settings, progress)
            running = LocalModelServer(
                path,
                settings.alias,
                threads=settings.threads,
                context_size=settings.context_size,
                log_dir=settings.cache_dir.parent,
                startup_timeout=settings.startup_timeout,
            )
            _started.append(running)
            running.start()
    model = f"openai:{running.alias}"
    profile = model_profile(model, found=True)  # as for any server's model (docs/models.md)
    found = {"base_url": running.base_url, "worker_model": model, "critic_model": model}
    return {**found, **profile_settings(profile, profile, {}), **SERVER_SETTINGS}


def stop_embedded_model() -> None:
    """Stop the embedded model's server, if this process started one."""
    while _started:
        _started.pop().stop()


atexit.register(stop_embedded_model)
