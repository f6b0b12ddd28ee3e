"""critic-loop: a worker drafts, an independent critic grades, the worker revises.

The public Python API. The graph itself lives in `graphs/`, its nodes in `nodes/`, and the
schemas in `state/`.
"""

from critic_loop.results import (
    LoopDidNotPass,
    LoopExhausted,
    LoopInfeasible,
    LoopStalled,
    VerifierFailed,
    result_of,
)
from critic_loop.run import ThreadFinished, arun_loop, fork_loop, loop_input, run_loop
from graphs.app import build_graph
from nodes.models import (
    ModelSetupError,
    register_chat_model_provider,
    unregister_chat_model_provider,
)
from state import Context, Criterion, LoopState, Verdict
from state.rubric import (
    CharCount,
    Contains,
    Headings,
    MatchesJsonSchema,
    PythonCheck,
    PythonSyntax,
    Regex,
    TestSuite,
    ValidJson,
    WordCount,
)
from state.verdict import CheckResult

__all__ = [
    "CharCount",
    "CheckResult",
    "Contains",
    "Context",
    "Criterion",
    "Headings",
    "LoopDidNotPass",
    "LoopExhausted",
    "LoopInfeasible",
    "LoopStalled",
    "LoopState",
    "MatchesJsonSchema",
    "ModelSetupError",
    "PythonCheck",
    "PythonSyntax",
    "Regex",
    "TestSuite",
    "ValidJson",
    "Verdict",
    "ThreadFinished",
    "VerifierFailed",
    "arun_loop",
    "build_graph",
    "fork_loop",
    "loop_input",
    "register_chat_model_provider",
    "result_of",
    "run_loop",
    "unregister_chat_model_provider",
    "WordCount",
]
