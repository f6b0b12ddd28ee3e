"""A sandboxed pytest runner for drafted code: the verdict out of the code's reach.

A library of its own: it imports nothing from LangGraph, LangChain or the rest of
critic_loop (the `tests` criterion in `critic_loop.nodes.verifiers` uses it). `runner`
runs a suite (`run_suite`, `arun_suite`), `isolation` probes and builds the sandbox,
`memory_bound` holds a run's processes to one memory total, `bounded_run` runs the two
processes, `report` judges the harness's report, and `boundary` is the code that runs
inside the sandboxes.
"""


class IsolationUnavailable(RuntimeError):
    """Drafted code cannot run here: the sandbox it needs is missing (the message says why)."""
