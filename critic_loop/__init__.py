"""critic-loop: a worker drafts, an independent critic grades, the worker revises.

The public Python API. The graphs live in `critic_loop.graphs`, their nodes in
`critic_loop.nodes` and the schemas in `critic_loop.state`. Names are imported on first
use, so `import critic_loop` (and the command line's `--help`) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what `homes()` names, for type checkers (`X as X` exports X)
    from critic_loop.errors import ReviewPending as ReviewPending
    from critic_loop.errors import ThreadBusy as ThreadBusy
    from critic_loop.errors import ThreadFinished as ThreadFinished
    from critic_loop.graphs.app import build_graph as build_graph
    from critic_loop.nodes.models.provider_registry import (
        register_chat_model_provider as register_chat_model_provider,
    )
    from critic_loop.nodes.models.provider_registry import (
        unregister_chat_model_provider as unregister_chat_model_provider,
    )
    from critic_loop.results import LoopCancelled as LoopCancelled
    from critic_loop.results import LoopDidNotPass as LoopDidNotPass
    from critic_loop.results import LoopExhausted as LoopExhausted
    from critic_loop.results import LoopInfeasible as LoopInfeasible
    from critic_loop.results import LoopStalled as LoopStalled
    from critic_loop.results import VerifierFailed as VerifierFailed
    from critic_loop.results import result_of as result_of
    from critic_loop.run import arun_loop as arun_loop
    from critic_loop.run import fork_loop as fork_loop
    from critic_loop.run import loop_input as loop_input
    from critic_loop.run import run_loop as run_loop
    from critic_loop.state.context import Context as Context
    from critic_loop.state.errors import InvalidInput as InvalidInput
    from critic_loop.state.errors import ModelSetupError as ModelSetupError
    from critic_loop.state.loop import LoopState as LoopState
    from critic_loop.state.references import register_check as register_check
    from critic_loop.state.rubric import *  # noqa: F403  (each criterion kind)
    from critic_loop.state.verdict import CheckResult as CheckResult
    from critic_loop.state.verdict import Verdict as Verdict

_HOMES = {  # where each public name lives; it is imported from there on first use
    "critic_loop.errors": "ReviewPending ThreadBusy ThreadFinished",
    "critic_loop.graphs.app": "build_graph",
    "critic_loop.nodes.models.provider_registry": (
        "register_chat_model_provider unregister_chat_model_provider"
    ),
    "critic_loop.results": (
        "LoopCancelled LoopDidNotPass LoopExhausted LoopInfeasible LoopStalled VerifierFailed "
        "result_of"
    ),
    "critic_loop.run": "arun_loop fork_loop loop_input run_loop",
    "critic_loop.state.context": "Context",
    "critic_loop.state.errors": "InvalidInput ModelSetupError",
    "critic_loop.state.loop": "LoopState",
    "critic_loop.state.references": "register_check",
    "critic_loop.state.verdict": "CheckResult Verdict",
}
_NAMED = {name: module for module, names in _HOMES.items() for name in names.split()}


def homes() -> dict[str, str]:
    """Return every public name and its module: `_HOMES`'s, and each criterion kind's class."""
    kinds = importlib.import_module("critic_loop.state.rubric").KINDS.values()
    return {**_NAMED, **{kind.__name__: kind.__module__ for kind in kinds}}


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted(homes())
    module = _NAMED.get(name) or homes().get(name)
    if module is None:
        raise AttributeError(f"module 'critic_loop' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *homes()})
