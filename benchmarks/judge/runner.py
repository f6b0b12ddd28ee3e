"""Grade every artifact with every judge configuration, one pair at a time, into the report.

Each pair goes through `critic_loop.grading.critique_artifact`, the path `critic-loop
calibrate` takes (checks first, then the judge, every criterion graded), and records the
critic's decision on each criterion, or that it gave no verdict, with the calls, tokens and
seconds the grade took. The work is interleaved, artifact by artifact (every configuration
of an artifact before the next artifact), so a report cut short still compares the
configurations on the same artifacts. A server failure is kept in the row and the run goes
on, unless failures keep coming (the server is probably down), which stops it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.effectiveness.configs import Configuration
from benchmarks.judge.cases import Case
from benchmarks.judge.labelset import as_line
from benchmarks.judge.report import Report, Row
from critic_loop.grading import acritique_artifact

logger = logging.getLogger(__name__)

MAX_CONSECUTIVE_ERRORS = 5
"""Stop the run after this many pairs in a row end in an error."""


class RunAborted(RuntimeError):
    """Too many pairs in a row failed; the report keeps every row so far."""


@dataclass(frozen=True)
class Pair:
    """One configuration on one artifact."""

    case: Case
    configuration: Configuration


def plan(
    cases: Sequence[Case], configurations: Sequence[Configuration], report: Report
) -> list[Pair]:
    """List the pairs still to run, artifact by artifact, skipping those already done."""
    return [
        Pair(case, configuration)
        for case in cases
        for configuration in configurations
        if not report.done(case.id, configuration.name)
    ]


async def grade_pair(pair: Pair) -> Row:
    """Have one configuration's critic grade one artifact; never raises for a model failure."""
    case = pair.case
    row = Row(case=case.id, kind=case.kind, config=pair.configuration.name)
    started = time.perf_counter()
    try:
        critique = await acritique_artifact(
            case.artifact, as_line(case)["rubric"], pair.configuration.context()
        )
    except Exception as error:  # a server failure: kept in the row, run again on --resume
        row.error = f"{type(error).__name__}: {error}"[:2000]
        row.seconds = time.perf_counter() - started
        return row
    row.seconds = time.perf_counter() - started
    row.calls = critique.attempts
    row.input_tokens = critique.usage.input_tokens
    row.output_tokens = critique.usage.output_tokens
    row.tokens_estimated = critique.usage.estimated
    if critique.verdict is None:
        row.no_verdict = critique.error or "no verdict"
        row.decisions = {p.id: None for p in case.pairs}
        return row
    row.verdict = True
    row.decisions = {r.criterion_id: r.passed for r in critique.verdict.results}
    row.evidence = {r.criterion_id: r.evidence for r in critique.verdict.results}
    return row


def run_benchmark(
    cases: Sequence[Case],
    configurations: Sequence[Configuration],
    report: Report,
    concurrency: int = 1,
) -> None:
    """Grade every pair not done yet into `report`, logging one line per pair.

    Up to `concurrency` pairs are graded at once (under asyncio; a judge's calls for the
    criteria of one artifact go together too), which on a busy shared server shortens the
    wait; rows are recorded as they finish.

    Raises:
        RunAborted: `MAX_CONSECUTIVE_ERRORS` pairs in a row failed.
    """
    asyncio.run(_run(plan(cases, configurations, report), report, concurrency))


async def _run(pending: list[Pair], report: Report, concurrency: int) -> None:
    gate = asyncio.Semaphore(max(1, concurrency))
    failures = 0
    finished = 0

    async def one(pair: Pair) -> None:
        nonlocal failures, finished
        async with gate:
            row = await grade_pair(pair)
        report.record(row)
        finished += 1
        labels = {p.id: p.label for p in pair.case.pairs}
        agreed = sum(row.decisions.get(cid) == label for cid, label in labels.items())
        verdict = f"{agreed}/{len(labels)} agree" if row.verdict else "no verdict"
        logger.info(
            "%d/%d %s [%s]: %s (%d call(s), %.0f s)",
            finished,
            len(pending),
            pair.case.id,
            pair.configuration.name,
            row.error or verdict,
            row.calls,
            row.seconds,
        )
        failures = failures + 1 if row.error else 0
        if failures >= MAX_CONSECUTIVE_ERRORS:
            raise RunAborted(f"{failures} pairs in a row failed; last: {row.error}")

    tasks = [asyncio.ensure_future(one(pair)) for pair in pending]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
