"""`critic-loop worker`: serve runs from a Temporal task queue until SIGTERM or Ctrl-C."""

from __future__ import annotations

import signal
from typing import Any

import click

from critic_loop.errors import UsageProblem

TIMING_OPTIONS = {
    "heartbeat_timeout": "Seconds without a heartbeat before a node is retried on another worker.",
    "sticky_timeout": "Seconds before a dead worker's workflows move to another worker.",
    "activity_attempts": "Tries of a node that fails (a worker died, a model kept failing).",
    "checks_timeout": "Seconds a critique may spend on checks and test suites.",
    "shutdown_timeout": "Seconds a stopping worker lets its running nodes finish.",
}
"""Worker settings with a flag of their own (all: CRITIC_LOOP_TEMPORAL_<FIELD>)."""


def _say(message: str) -> None:
    click.echo(f"critic-loop worker: {message}", err=True)


async def _serve(settings: Any, database: str | None, identity: str | None) -> None:
    import asyncio

    from critic_loop.temporal.client import connect
    from critic_loop.temporal.worker import serve

    try:
        client = await connect(settings)
    except RuntimeError as unreachable:  # the SDK's "Failed client connect: ..."
        raise UsageProblem(f"cannot reach Temporal at {settings.address}: {unreachable}") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    def ready(worker: Any, resources: Any) -> None:
        name = worker.config(active_config=True).get("identity") or client.identity
        _say(
            f"polling task queue {settings.task_queue!r} at {settings.address} "
            f"(namespace {settings.namespace}) as {name}; rules in {resources.location}"
        )

    await serve(client, settings, stop, database=database, identity=identity, on_ready=ready)
    _say("stopped")


@click.command("worker")
@click.option(
    "--temporal",
    "address",
    help="The Temporal service, as host:port [default: $CRITIC_LOOP_TEMPORAL_ADDRESS, "
    "else 127.0.0.1:7233].",
)
@click.option("--namespace", help="The Temporal namespace [default: default].")
@click.option("--task-queue", help="The task queue to poll [default: critic-loop].")
@click.option(
    "--db",
    help="SQLite file or postgresql:// URL for the rules, shared by every worker "
    "[default: $CRITIC_LOOP_DATABASE_URL, else .critic_loop/critic_loop.sqlite].",
)
@click.option("--identity", help="This worker's name in Temporal [default: pid@host].")
@click.option("--heartbeat-timeout", type=float, help=TIMING_OPTIONS["heartbeat_timeout"])
@click.option("--sticky-timeout", type=float, help=TIMING_OPTIONS["sticky_timeout"])
@click.option("--activity-attempts", type=int, help=TIMING_OPTIONS["activity_attempts"])
@click.option("--checks-timeout", type=float, help=TIMING_OPTIONS["checks_timeout"])
@click.option("--shutdown-timeout", type=float, help=TIMING_OPTIONS["shutdown_timeout"])
def worker(
    address: str | None,
    namespace: str | None,
    task_queue: str | None,
    db: str | None,
    identity: str | None,
    **timing: float | int | None,
) -> int:
    """Run a Temporal worker for critic-loop runs until SIGTERM or Ctrl-C.

    Node timeouts follow this process's CRITIC_LOOP_REQUEST_TIMEOUT, CRITIC_LOOP_MAX_RETRIES
    and attempts settings; a run that needs longer is refused. API keys and operator
    settings (CRITIC_LOOP_UNTRUSTED_INPUT, ...) come from this process's environment.
    """
    import asyncio

    from critic_loop.extras import missing_extra_message

    try:
        from critic_loop.temporal.settings import TemporalSettings
    except ImportError as missing:
        raise UsageProblem(
            missing_extra_message(
                f"the worker needs Temporal's packages ({missing.name} is missing)", "temporal"
            )
        ) from missing
    chosen = dict(address=address, namespace=namespace, task_queue=task_queue, **timing)
    settings = TemporalSettings.model_validate({k: v for k, v in chosen.items() if v is not None})
    asyncio.run(_serve(settings, db, identity))
    return 0
