"""A sandboxed pytest runner for drafted code: the verdict out of the code's reach.

It imports nothing of LangGraph, LangChain or the rest of critic_loop.
"""


class IsolationUnavailable(RuntimeError):
    """Drafted code cannot run here: the sandbox it needs is missing (the message says why)."""
