"""critic-loop: a worker drafts, an independent critic grades, the worker revises.

The public Python API. The graphs live in `critic_loop.graphs`, their nodes in
`critic_loop.nodes` and the schemas in `critic_loop.state`. Names are imported on first
use, so `import critic_loop` (and the command line's `--help`) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from critic_loop.errors import ReviewPending, ThreadBusy, ThreadFinished
    from critic_loop.graphs.app import build_graph
    from critic_loop.nodes.models.provider_registry import (
        register_chat_model_provider,
        unregister_chat_model_provider,
    )
    from critic_loop.results import (
        LoopCancelled,
        LoopDidNotPass,
        LoopExhausted,
        LoopInfeasible,
        LoopStalled,
        VerifierFailed,
        result_of,
    )
    from critic_loop.run import arun_loop, fork_loop, loop_input, run_loop
    from critic_loop.state.context import Context
    from critic_loop.state.errors import InvalidInput, ModelSetupError
    from critic_loop.state.loop import LoopState
    from critic_loop.state.references import register_check
    from critic_loop.state.rubric import (
        CharCount,
        Contains,
        Criterion,
        Headings,
        Language,
        MatchesJsonSchema,
        PythonCheck,
        PythonFeature,
        PythonSyntax,
        Regex,
        TestSuite,
        ValidJson,
        WordCount,
    )
    from critic_loop.state.verdict import CheckResult, Verdict

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
    "critic_loop.state.rubric": (
        "CharCount Contains Criterion Headings Language MatchesJsonSchema PythonCheck "
        "PythonFeature PythonSyntax Regex "
        "TestSuite ValidJson WordCount"
    ),
    "critic_loop.state.verdict": "CheckResult Verdict",
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names.split()}

__all__ = [
    "CharCount",
    "CheckResult",
    "Contains",
    "Context",
    "Criterion",
    "Headings",
    "InvalidInput",
    "Language",
    "LoopCancelled",
    "LoopDidNotPass",
    "LoopExhausted",
    "LoopInfeasible",
    "LoopStalled",
    "LoopState",
    "MatchesJsonSchema",
    "ModelSetupError",
    "PythonCheck",
    "PythonFeature",
    "PythonSyntax",
    "Regex",
    "ReviewPending",
    "TestSuite",
    "ThreadBusy",
    "ThreadFinished",
    "ValidJson",
    "Verdict",
    "VerifierFailed",
    "WordCount",
    "arun_loop",
    "build_graph",
    "fork_loop",
    "loop_input",
    "register_chat_model_provider",
    "register_check",
    "result_of",
    "run_loop",
    "unregister_chat_model_provider",
]


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'critic_loop' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
