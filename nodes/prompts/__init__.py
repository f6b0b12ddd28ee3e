"""Load and render the prompt templates that live beside this module.

Templates are Jinja2 files. A user replaces any of them by putting a file of the same name
in a directory and naming it in `Context.prompts_dir`; templates not found there come from
nodes/prompts/. Undefined variables are errors, so a mistyped replacement fails loudly.
Templates render in Jinja's sandbox: a template can format the values it is given, but
cannot reach Python internals (`cycler.__init__.__globals__` and the like raise
`SecurityError`), so even an allowed prompts directory cannot run code.

Templates are read from disk once and then kept: the built-in ones when this module is
imported, a `prompts_dir`'s when the run's preflight loads them (`load_prompts`). Nodes
that render them under `ainvoke` therefore do no file I/O on the event loop.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

BUILT_IN_PROMPTS = Path(__file__).parent
"""The directory holding the default templates."""

PROMPT_NAMES = tuple(sorted(path.name for path in BUILT_IN_PROMPTS.glob("*.jinja")))
"""Every template a run uses (a `prompts_dir` may replace any of them)."""


@lru_cache(maxsize=16)
def _environment(prompts_dir: str | None) -> Environment:
    if prompts_dir is not None and not Path(prompts_dir).is_dir():
        raise FileNotFoundError(f"prompts_dir {prompts_dir!r} is not a directory")
    search = [FileSystemLoader(prompts_dir)] if prompts_dir else []
    return SandboxedEnvironment(
        loader=ChoiceLoader([*search, FileSystemLoader(BUILT_IN_PROMPTS)]),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )


def load_prompts(prompts_dir: str | None = None) -> None:
    """Read and compile every template now (raising on a missing dir or a broken template)."""
    environment = _environment(prompts_dir)
    for name in PROMPT_NAMES:
        environment.get_template(name)


def render_prompt(name: str, prompts_dir: str | None = None, **values: Any) -> str:
    """Render the template `name` (for example "worker_task.jinja") with `values`."""
    return _environment(prompts_dir).get_template(name).render(**values).strip()


Turn = tuple[str, dict[str, Any]] | None
"""A template and its values, or None for a turn left out."""


def conversation(prompts_dir: str | None, system: str, *turns: Turn) -> list[BaseMessage]:
    """Render the `system` template, then each turn as the person's (those not None)."""
    rendered = [
        HumanMessage(render_prompt(name, prompts_dir, **values))
        for name, values in filter(None, turns)
    ]
    return [SystemMessage(render_prompt(system, prompts_dir)), *rendered]


load_prompts()
