"""Figures over finished runs, for `critic-loop stats` (docs/commands.md defines each)."""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args

from critic_loop.cli.stored_threads import Thread, round_seconds
from critic_loop.nodes.loop.history_queries import best_critique
from critic_loop.state.budget import spent_on
from critic_loop.state.records import Outcome, TokenUsage
from critic_loop.state.rules import MemoryReport
from critic_loop.state.verdict import Verdict

OUTCOMES: tuple[str, ...] = get_args(Outcome)


@dataclass
class RunFigures:
    """What one finished run contributes to the statistics."""

    outcome: str
    rounds: int
    exhausted_by: str | None = None
    """For an exhausted run, the limit it reached (max_iterations or a budget)."""
    calls: int = 0
    """Model calls of every role (worker, judges, retries, distiller), from its history."""
    first: dict[str, bool] = field(default_factory=dict)
    """Whether each criterion passed in round 1's best verdict (absent: no verdict)."""
    final: dict[str, bool] = field(default_factory=dict)
    """Whether each criterion passed in the final verdict (absent: no verdict)."""
    best_by_round: list[float] = field(default_factory=list)
    """The best weighted score reached by the end of each round, round 1 first."""
    worker: TokenUsage = field(default_factory=TokenUsage)
    critic: TokenUsage = field(default_factory=TokenUsage)
    round_seconds: dict[int, float] = field(default_factory=dict)
    seconds: float | None = None
    """From the run's submission to its last checkpoint."""


def _passes(verdict: Verdict | None) -> dict[str, bool]:
    if verdict is None:
        return {}
    return {result.criterion_id: result.passed for result in verdict.results}


def figures_of(thread: Thread) -> RunFigures:
    """Reduce a finished run to the figures it contributes."""
    drafts, critiques, _ = thread.records()
    rounds = max((critique.round for critique in critiques), default=0)
    first = best_critique([c for c in critiques if c.round == 1])
    final = best_critique(critiques)
    chosen = [best_critique([c for c in critiques if c.round == n]) for n in range(1, rounds + 1)]
    scores = [best.verdict.score if best and best.verdict else 0.0 for best in chosen]
    started, ended = thread.started_at, thread.ended_at
    memory = thread.values.get("memory_report")
    report = MemoryReport.model_validate(memory) if isinstance(memory, Mapping) else None
    return RunFigures(
        outcome=str(thread.outcome),
        rounds=rounds,
        exhausted_by=thread.values.get("exhausted_by"),
        calls=spent_on(drafts, critiques, report).calls,
        first=_passes(first.verdict if first else None),
        final=_passes(final.verdict if final else None),
        best_by_round=list(itertools.accumulate(scores, max)),
        worker=sum((draft.usage for draft in drafts), TokenUsage()),
        critic=sum((critique.usage for critique in critiques), TokenUsage()),
        round_seconds=round_seconds(thread.line),
        seconds=(ended - started).total_seconds() if started and ended else None,
    )


def nearest_rank(values: Sequence[float], share: float) -> float:
    """Return the nearest-rank percentile: the smallest value `share` of `values` do not exceed."""
    ordered = sorted(values)
    return ordered[max(math.ceil(share * len(ordered)), 1) - 1]


def spread(values: Sequence[float]) -> dict[str, Any]:
    """Summarize `values`: how many, mean, median and p90 (None when there are none)."""
    if not values:
        return {"count": 0, "mean": None, "median": None, "p90": None}
    return {
        "count": len(values),
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "p90": nearest_rank(values, 0.9),
    }


def _criteria(runs: Sequence[RunFigures]) -> dict[str, dict[str, Any]]:
    ids = sorted({criterion for run in runs for criterion in (*run.final, *run.first)})
    table: dict[str, dict[str, Any]] = {}
    for criterion in ids:
        graded = [run for run in runs if criterion in run.final]
        passed = sum(run.final[criterion] for run in graded)
        failed_first = [run for run in runs if run.first.get(criterion) is False]
        recovered = sum(run.final.get(criterion, False) for run in failed_first)
        table[criterion] = {
            "final_verdicts": len(graded),
            "passed": passed,
            "pass_rate": passed / len(graded) if graded else None,
            "failed_first": len(failed_first),
            "then_passed": recovered,
            "then_passed_rate": recovered / len(failed_first) if failed_first else None,
        }
    return table


def _tokens(runs: Sequence[RunFigures]) -> dict[str, Any]:
    rounds = sum(run.rounds for run in runs)
    worker = sum((run.worker for run in runs), TokenUsage())
    critic = sum((run.critic for run in runs), TokenUsage())

    counts = {
        "worker_input": worker.input_tokens,
        "worker_output": worker.output_tokens,
        "critic_input": critic.input_tokens,
        "critic_output": critic.output_tokens,
    }
    per_round = {
        name: count / rounds if rounds else None
        for name, count in {**counts, "total": sum(counts.values())}.items()
    }
    return {
        "rounds": rounds,
        **counts,
        "per_round": per_round,
        "estimated": worker.estimated or critic.estimated,
    }


def score_by_round(runs: Iterable[RunFigures]) -> list[dict[str, Any]]:
    """Return, for each round, the mean best score of the runs that reached it."""
    reached: dict[int, list[float]] = {}
    for run in runs:
        for number, score in enumerate(run.best_by_round, start=1):
            reached.setdefault(number, []).append(score)
    return [
        {"round": number, "runs": len(scores), "mean_best_score": statistics.fmean(scores)}
        for number, scores in sorted(reached.items())
    ]


def statistics_of(runs: Sequence[RunFigures], unfinished: int, scope: str | None) -> dict[str, Any]:
    """Compute every figure of the report (docs/commands.md) as JSON-ready data."""
    outcomes = Counter(run.outcome for run in runs)
    passed = [float(run.rounds) for run in runs if run.outcome == "passed"]
    return {
        "scope": scope,
        "runs": len(runs),
        "unfinished": unfinished,
        "outcomes": {outcome: outcomes.get(outcome, 0) for outcome in OUTCOMES},
        "exhausted_by": dict(
            sorted(Counter(run.exhausted_by for run in runs if run.exhausted_by).items())
        ),
        "model_calls_per_run": spread([float(run.calls) for run in runs]),
        "pass_rate": outcomes.get("passed", 0) / len(runs) if runs else None,
        "rounds_to_pass": {
            **spread(passed),
            "histogram": {str(n): c for n, c in sorted(Counter(map(int, passed)).items())},
        },
        "criteria": _criteria(runs),
        "tokens": _tokens(runs),
        "seconds_per_round": spread(
            [seconds for run in runs for seconds in run.round_seconds.values()]
        ),
        "seconds_per_run": spread([run.seconds for run in runs if run.seconds is not None]),
        "score_by_round": score_by_round(runs),
    }
