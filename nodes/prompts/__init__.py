"""Load and render the Jinja prompt templates that live beside this module.

`Context.prompts_dir` may replace any; undefined variables are errors; templates render in
Jinja's sandbox, so even an allowed prompts directory cannot run code. They are read once
(a `prompts_dir`'s by the run's preflight), so nodes under `ainvoke` do no file I/O.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

BUILT_IN_PROMPTS = Path(__file__).parent
PROMPT_NAMES = tuple(sorted(path.name for path in BUILT_IN_PROMPTS.glob("*.jinja")))


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


def worked_examples(
    prompts_dir: str | None,
    system: str,
    ask: str,
    examples: str,
    values: dict[str, Any],
    leave_out: str | None = None,
) -> list[BaseMessage]:
    """Render `system`, each example as an earlier turn (`ask` and its answer), then `ask`.

    `examples` is a template holding a JSON list of objects: the `ask` template's values and
    the `answer`, with an optional `family`; `leave_out` skips one family's examples (so a
    judge is measured on a kind of text its prompt never showed it). A small model follows
    what it was shown better than what it was told.
    """
    shown: Any = json.loads(render_prompt(examples, prompts_dir))
    if not isinstance(shown, list) or not all(
        isinstance(item, dict) and isinstance(item.get("answer"), str) for item in shown
    ):
        raise ValueError(f"{examples} must be a JSON list of objects with an 'answer'")
    messages: list[BaseMessage] = [SystemMessage(render_prompt(system, prompts_dir))]
    for item in shown:
        if item.get("family") != leave_out or leave_out is None:
            given = {key: value for key, value in item.items() if key not in ("answer", "family")}
            messages += [
                HumanMessage(render_prompt(ask, prompts_dir, **given, fence=EXAMPLE_FENCE)),
                AIMessage(item["answer"]),
            ]
    return [*messages, HumanMessage(render_prompt(ask, prompts_dir, **values))]


EXAMPLE_FENCE = "example"  # fixed, so a server can reuse the examples' prefix

load_prompts()
