"""A sandboxed pytest runner for drafted code; it imports nothing of LangGraph or critic_loop."""


class IsolationUnavailable(RuntimeError):
    """Drafted code cannot run here: the sandbox it needs is missing (the message says why)."""
