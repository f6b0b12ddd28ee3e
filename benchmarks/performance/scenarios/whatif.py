"""What the suspected fixes would buy: critic-loop in memory with each fix patched in.

The fixes are applied only inside this benchmark process, with `unittest.mock.patch`,
around each run of a variant; critic-loop's code is not changed. Each variant's per-round
time is divided by the plain loop's in the same repeat (interleaved, like `overhead`),
so the drop in the ratio is what the fix is worth at zero model latency.

- cache chat models: `load_chat_model` results kept per (spec, settings), as the nodes
  in `generate_steps` and `structured_model` would if they kept them;
- cache the verdict schema: `critic_output_schema()` computed once;
- cache the structured runnable: `with_json_output` kept per (model, schema, method);
- all three together.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks.performance.report import Figure
from benchmarks.performance.scenarios.overhead import per_round
from benchmarks.performance.server import ServerProcess
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import CriticLoopMemory, Loop, PlainLoop
from benchmarks.performance.timing import interleaved, median, paired_ratios

Patches = dict[str, Callable[..., Any]]


def cached_chat_models() -> Patches:
    """Keep each chat model `load_chat_model` builds, by its arguments."""
    from critic_loop.nodes.models.loading import load_chat_model

    models: dict[tuple[Any, ...], Any] = {}

    def load(spec: str, **settings: Any) -> Any:
        key = (spec, *sorted(settings.items()))
        if key not in models:
            models[key] = load_chat_model(spec, **settings)
        return models[key]

    return {
        "critic_loop.nodes.loop.generate.load_chat_model": load,
        "critic_loop.nodes.models.structured.load_chat_model": load,
    }


def cached_schema() -> Patches:
    """Compute the verdict schema once."""
    from critic_loop.state.verdict import critic_output_schema

    return {
        "critic_loop.nodes.verifiers.judge.critic_output_schema": functools.cache(
            critic_output_schema
        )
    }


def cached_structured() -> Patches:
    """Keep each structured-output runnable, by (model, schema, method)."""
    from critic_loop.nodes.models.loading import with_json_output

    bound: dict[tuple[int, str, int, str], tuple[Any, Any]] = {}

    def bind(model: Any, spec: str, schema: dict[str, Any], method: str) -> Any:
        key = (id(model), spec, id(schema), method)
        if key not in bound:  # the model is kept too, so its id is not reused
            bound[key] = (model, with_json_output(model, spec, schema, method))  # type: ignore[arg-type]
        return bound[key][1]

    return {"critic_loop.nodes.models.structured.with_json_output": bind}


class Patched:
    """A loop whose runs happen with `patches` applied (and only then)."""

    def __init__(self, loop: Loop, patches: Patches) -> None:
        """Wrap `loop`."""
        self.loop = loop
        self.patches = patches

    def run(self, loop_id: str, rounds: int) -> int:
        """Run `loop` with the patches applied."""
        with ExitStack() as stack:
            for target, replacement in self.patches.items():
                stack.enter_context(mock.patch(target, replacement))
            return self.loop.run(loop_id, rounds)


VARIANTS: dict[str, Callable[[], Patches]] = {
    "cache chat models": cached_chat_models,
    "cache verdict schema": cached_schema,
    "cache chat models + structured runnable + schema": lambda: {
        **cached_chat_models(),
        **cached_schema(),
        **cached_structured(),
    },
}


def suspected_fixes(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Measure critic-loop in memory with each suspected fix patched in, against the plain loop."""
    rounds, repeats = settings.overhead_rounds, settings.overhead_repeats
    with ServerProcess(0.0) as server:
        loops: dict[str, Loop] = {
            "plain loop": PlainLoop(server.base_url),
            "as it is": CriticLoopMemory(server.base_url),
        }
        for name, patches in VARIANTS.items():
            loops[name] = Patched(CriticLoopMemory(server.base_url), patches())
        loops["as it is"].run(uuid.uuid4().hex[:12], 1)
        samples = interleaved(
            {name: per_round(loop, rounds) for name, loop in loops.items()},
            repeats,
            settings.warmup,
        )
    ratios = {
        name: median(paired_ratios(values, samples["plain loop"]))
        for name, values in samples.items()
    }
    details["whatif"] = {"seconds_per_round": samples, "ratios": ratios}
    return [
        Figure(
            "what if",
            f"critic-loop in memory, {name} / plain loop",
            ratios[name],
            "x",
            "plain loop (per round, 0 ms)",
            samples={name: samples[name], "plain loop": samples["plain loop"]},
            medians={name: median(samples[name]), "plain loop": median(samples["plain loop"])},
            notes=["patched inside the benchmark process only"] if name != "as it is" else [],
        )
        for name in loops
        if name != "plain loop"
    ]
