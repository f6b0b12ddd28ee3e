"""The Temporal graph's state: the loop's state with the distillation steps' fields.

In-process, distillation is a subgraph with a state of its own. The plugin cannot run a
compiled subgraph as a node, so the Temporal graph runs `propose_rules` and
`consolidate_rules` as nodes of the loop itself, and its state carries their two extra
fields. A run's result leaves them out (`loop_values`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from critic_loop.state.loop import LoopState
from critic_loop.state.rules import RuleOperation


class TemporalLoopState(LoopState):
    """`LoopState` plus the distillation steps' working fields."""

    proposed: list[RuleOperation] | None = Field(
        default=None, description="The changes the distiller proposed; null until it answered."
    )
    source_thread_id: str | None = Field(
        default=None, description="The thread the run came from (this one: left null)."
    )


def loop_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Return a finished run's values as the in-process graph returns them."""
    return {key: value for key, value in values.items() if key in LoopState.model_fields}
