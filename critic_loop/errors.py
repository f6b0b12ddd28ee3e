"""Errors of the ring around the graph (command line, run helpers, persistence).

Importing them imports no graph or model library; the graph's own are `critic_loop.state.errors`.
"""

from __future__ import annotations

from critic_loop.state.errors import ThreadFinished as ThreadFinished  # the graph raises it too


class ThreadBusy(RuntimeError):
    """Another run holds the thread's lease: it is writing to the thread right now."""

    def __init__(self, thread_id: str, holder: str) -> None:
        self.thread_id = thread_id
        self.holder = holder
        super().__init__(
            f"thread {thread_id} is being run by {holder}; wait for that run to end, or "
            "let this one wait for it (--wait-for-thread, or wait_for_thread=True)"
        )


class UsageProblem(ValueError):
    """The command line was given something it cannot run."""


class Terminated(BaseException):
    """The process was asked to stop (SIGTERM); raised like KeyboardInterrupt is for SIGINT."""


class RunStopped(Exception):
    """A person or the system stopped a run mid-way; every finished step is saved."""

    def __init__(self, thread_id: str, signal_name: str) -> None:
        self.thread_id = thread_id
        self.signal_name = signal_name
        super().__init__(f"stopped by {signal_name} in thread {thread_id}")


class RunInterrupted(RuntimeError):
    """A model or the network failed mid-run; every finished step is saved."""

    def __init__(self, thread_id: str, error: BaseException) -> None:
        self.thread_id = thread_id
        self.cause = error
        self.kept = True  # False: it held no draft yet and was deleted
        cause = (  # a connection failure's message names what failed (role, model, URL)
            str(error) if isinstance(error, ConnectionError) else f"{type(error).__name__}: {error}"
        )
        super().__init__(f"the run stopped: {cause}")


class UnsafeCheckpoint(ValueError):
    """A stored checkpoint names a type outside the allowlist (tampered, or foreign)."""


class ReviewPending(RuntimeError):
    """A run paused for a person's review and no reviewer was given to answer it."""

    def __init__(self, thread_id: str, request: dict[str, object]) -> None:
        self.thread_id = thread_id
        self.request = request
        super().__init__(
            f"thread {thread_id} waits for a review ({request.get('review')}); resume it "
            "with Command(resume={...}) or pass reviewer= to run_loop"
        )
