"""Load and render the prompt templates that live in nodes/prompts/.

Templates are Jinja2 files. A user replaces any of them by putting a file of the same name
in a directory and naming it in `Context.prompts_dir`; templates not found there come from
nodes/prompts/. Undefined variables are errors, so a mistyped replacement fails loudly.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

BUILT_IN_PROMPTS = Path(__file__).parent / "prompts"
"""The directory holding the default templates."""


@lru_cache(maxsize=16)
def _environment(prompts_dir: str | None) -> Environment:
    search = [FileSystemLoader(prompts_dir)] if prompts_dir else []
    return Environment(
        loader=ChoiceLoader([*search, FileSystemLoader(BUILT_IN_PROMPTS)]),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_prompt(name: str, prompts_dir: str | None = None, **values: Any) -> str:
    """Render the template `name` (for example "worker_task.jinja") with `values`."""
    if prompts_dir is not None and not Path(prompts_dir).is_dir():
        raise FileNotFoundError(f"prompts_dir {prompts_dir!r} is not a directory")
    return _environment(prompts_dir).get_template(name).render(**values).strip()
