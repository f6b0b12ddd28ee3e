"""Figure 4: many runs through the real `langgraph dev` server, driven with `langgraph_sdk`.

The dev server (tests.support.dev_server, on a free port) serves this project's
langgraph.json with `--n-jobs-per-worker served_jobs_per_worker` (its default, 10, would
queue all but 10 runs); its model calls go to the benchmark's scripted server with
`served_latency_seconds` per call. One run alone is timed first (its latency is the
baseline), then `served_runs` runs are started at once with `runs.wait`, each on its own
thread, then one alone again. One run in this process (`graph.ainvoke` in memory) is
timed beside each lone served run, to show what the server adds to a run's latency.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from benchmarks.performance.report import Figure
from benchmarks.performance.server import ServerProcess, loop_task
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import critic_context
from benchmarks.performance.timing import median
from tests.support.dev_server import DevServer
from tests.support.rubrics import RUBRIC

ASSISTANT = "critic_loop"


async def _one_run(client: Any, rounds: int) -> float:
    """Run one loop on a new thread through the server; return its wall time."""
    start = time.perf_counter()
    thread = await client.threads.create()
    values = await client.runs.wait(
        thread["thread_id"],
        ASSISTANT,
        input={
            "task": loop_task(uuid.uuid4().hex[:12], rounds),
            "rubric": [criterion.model_dump() for criterion in RUBRIC],
        },
        # served runs may use only the operator's server: it comes from OPENAI_BASE_URL
        context=critic_context(None, rounds),
    )
    seconds = time.perf_counter() - start
    if not isinstance(values, dict) or values.get("outcome") != "passed":
        raise RuntimeError(f"a served run did not pass: {str(values)[:500]}")
    # a run returns its output (LoopOutput); the scripted critic passes the last round only
    if values.get("final_round") != rounds:
        passed_in = values.get("final_round")
        raise RuntimeError(f"a served run passed in round {passed_in}, not {rounds}")
    return seconds


async def _in_process(base_url: str, rounds: int) -> float:
    """Run one loop in this process (`ainvoke`, in memory) against the same model server."""
    from langgraph.checkpoint.memory import InMemorySaver

    from critic_loop import build_graph
    from critic_loop.run import loop_input, thread_config

    graph = build_graph(checkpointer=InMemorySaver())
    start = time.perf_counter()
    values = await graph.ainvoke(
        loop_input(loop_task(uuid.uuid4().hex[:12], rounds), RUBRIC),
        thread_config(),
        context=critic_context(base_url, rounds),
    )
    seconds = time.perf_counter() - start
    if values.get("outcome") != "passed" or values.get("final_round") != rounds:
        raise RuntimeError(f"the in-process run did not pass in round {rounds}: {values}")
    return seconds


async def _measure(settings: Settings, url: str, base_url: str) -> dict[str, Any]:
    from langgraph_sdk import get_client

    client = get_client(url=url, timeout=600)
    rounds = settings.served_rounds
    singles, in_process = [], []
    for _ in range(settings.warmup):
        await _one_run(client, rounds)
        await _in_process(base_url, rounds)
    for _ in range(settings.served_single_repeats):
        singles.append(await _one_run(client, rounds))
        in_process.append(await _in_process(base_url, rounds))
    start = time.perf_counter()
    outcomes = await asyncio.gather(
        *(_one_run(client, rounds) for _ in range(settings.served_runs)), return_exceptions=True
    )
    wall = time.perf_counter() - start
    for _ in range(settings.served_single_repeats):
        singles.append(await _one_run(client, rounds))
        in_process.append(await _in_process(base_url, rounds))
    errors = [repr(outcome)[:300] for outcome in outcomes if isinstance(outcome, BaseException)]
    run_seconds = [outcome for outcome in outcomes if isinstance(outcome, float)]
    return {
        "single": singles,
        "in_process": in_process,
        "wall": wall,
        "runs": run_seconds,
        "errors": errors,
    }


def through_the_server(settings: Settings, workdir: Any, details: dict[str, Any]) -> list[Figure]:
    """Figure 4: runs completed, runs per second, and one run's latency beside them."""
    with (
        ServerProcess(settings.served_latency_seconds) as model_server,
        DevServer(
            env={
                "OPENAI_BASE_URL": model_server.base_url,
                "OPENAI_API_KEY": "unused-by-the-scripted-server",
            },
            arguments=["--n-jobs-per-worker", str(settings.served_jobs_per_worker)],
        ) as dev_server,
    ):
        measured = asyncio.run(_measure(settings, dev_server.url, model_server.base_url))
    details["served"] = measured
    total = settings.served_runs
    completed = len(measured["runs"])
    single = median(measured["single"])
    per_second = completed / measured["wall"]
    baseline = f"1 run alone: {single:.2f} s ({1 / single:.2f} runs/s)"
    rounds = settings.served_rounds
    notes = [
        f"{rounds} rounds per run, {settings.served_latency_seconds * 1000:.0f} ms per "
        f"model call; langgraph dev --n-jobs-per-worker {settings.served_jobs_per_worker}; "
        f"{completed * rounds / measured['wall']:.1f} rounds/s; a run's latency under load: "
        f"median {median(measured['runs']):.2f} s"
    ]
    if measured["errors"]:
        notes.append(f"first error: {measured['errors'][0]}")
    samples = {"one run alone": measured["single"], "run latency under load": measured["runs"]}
    in_process = median(measured["in_process"])
    return [
        Figure(
            "served",
            f"runs completed of {total}",
            completed,
            "count",
            "all",
            total,
            "==",
            notes=notes,
        ),
        Figure(
            "served",
            f"runs per second, {total} at once",
            per_second,
            "runs/s",
            baseline,
            samples=samples,
            medians={name: median(values) for name, values in samples.items()},
        ),
        Figure(
            "served",
            f"throughput / one run alone's ({total} at once)",
            per_second * single,
            "x",
            "1 / one run's latency",
            notes=[f"{total} would be perfect concurrency; 1 means no concurrency at all"],
        ),
        Figure(
            "served",
            "one run through the server / one run in process",
            single / in_process,
            "x",
            f"graph.ainvoke in memory, same rounds: {in_process:.2f} s",
            samples={"served": measured["single"], "in process": measured["in_process"]},
            notes=["what langgraph dev and the SDK add to one run's latency"],
        ),
    ]
