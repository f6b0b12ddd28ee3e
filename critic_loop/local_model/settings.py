"""Settings of the embedded local model (`CRITIC_LOOP_LOCAL_MODEL_<FIELD>`); light to import."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

MODEL_ALIAS = "qwen2.5-coder-0.5b-instruct"

MODEL_URL = (
    "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/"
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
)
"""Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF (about 490 MB, Apache-2.0), from its makers."""

MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"


def _default_cache_dir() -> Path:  # $XDG_CACHE_HOME/critic-loop/models
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "critic-loop" / "models"


class LocalModelSettings(BaseSettings):
    """Where the embedded model's file is, or where to download it from, and how it runs."""

    model_config = SettingsConfigDict(
        env_prefix="CRITIC_LOOP_LOCAL_MODEL_", extra="ignore", use_attribute_docstrings=True
    )

    file: Path | None = None
    """A GGUF model file to use; unset: `url`, downloaded once."""
    url: str = MODEL_URL
    """Where to download the model file from."""
    sha256: str = MODEL_SHA256
    """The downloaded file's sha256 (a mismatch is refused)."""
    cache_dir: Path = Field(default_factory=_default_cache_dir)
    """Where downloaded model files are kept."""
    alias: str = MODEL_ALIAS
    """The model's name on the embedded server."""
    threads: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1)
    """CPU threads (default: all)."""
    context_size: int = Field(default=8192, ge=512)
    """The model's context window, in tokens."""
    startup_timeout: float = Field(default=180.0, gt=0)
    """Seconds to wait for the embedded server to answer."""
