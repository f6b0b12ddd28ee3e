"""Draw `critic-loop stats --plot FILE.png` (the `plot` extra's matplotlib, imported then).

Drawn on matplotlib's Agg canvas directly: no GUI backend, pyplot's global state untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from critic_loop.errors import UsageProblem
from critic_loop.state.extras import missing_extra_message

if TYPE_CHECKING:
    from critic_loop.cli.run_stats import RunFigures

MAX_LINES = 50
"""With more runs than this, the left panel shows only the mean and the 10-90% band."""


def require_matplotlib() -> None:
    """Raise `UsageProblem` naming the extra to install if matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageProblem(
            missing_extra_message("--plot draws with matplotlib, which is not installed", "plot")
        ) from None


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def plot_runs(runs: Sequence[RunFigures], path: Path, title: str) -> None:
    """Write a PNG of two panels: best score by round (per run and mean), rounds to pass.

    A round's mean is over the runs that reached it, and each point says how many did:
    runs that pass early stop, so later rounds hold the runs still failing, and a mean
    that drops there is read as such, not as runs getting worse.

    Raises:
        UsageProblem: matplotlib is missing, or the file cannot be written.
    """
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(11, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    scores, rounds = figure.subplots(1, 2)
    figure.suptitle(title)

    longest = max((len(run.best_by_round) for run in runs), default=0)
    if len(runs) <= MAX_LINES:
        for run in runs:
            scores.plot(
                range(1, len(run.best_by_round) + 1),
                run.best_by_round,
                color="tab:blue",
                alpha=0.25,
                linewidth=1,
            )
    numbers: list[int] = []
    means: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    counts: list[int] = []
    for number in range(1, longest + 1):
        reached = [
            run.best_by_round[number - 1] for run in runs if len(run.best_by_round) >= number
        ]
        numbers.append(number)
        counts.append(len(reached))
        means.append(sum(reached) / len(reached))
        lows.append(_percentile(reached, 0.1))
        highs.append(_percentile(reached, 0.9))
    if numbers:
        scores.fill_between(numbers, lows, highs, color="tab:blue", alpha=0.15, label="10-90%")
        scores.plot(
            numbers,
            means,
            color="tab:blue",
            linewidth=2.5,
            marker="o",
            label="mean over the runs that reached the round",
        )
        for number, mean, count in zip(numbers, means, counts, strict=True):
            scores.annotate(
                f"{count} run{'s' if count != 1 else ''}",
                (number, mean),
                textcoords="offset points",
                xytext=(0, 8),
                ha="center",
                fontsize=8,
            )
        scores.legend(loc="lower right", fontsize=8)
    scores.set_title("Best score by round (runs that reached it, and how many)")
    scores.set_xlabel("round")
    scores.set_ylabel("best weighted score so far")
    scores.set_ylim(-0.02, 1.05)
    scores.xaxis.set_major_locator(MaxNLocator(integer=True))
    scores.grid(alpha=0.3)

    passed = [run.rounds for run in runs if run.outcome == "passed"]
    if passed:
        edges = [number - 0.5 for number in range(1, max(passed) + 2)]
        rounds.hist(passed, bins=edges, color="tab:green", edgecolor="white")
    else:
        rounds.text(0.5, 0.5, "no passed runs", ha="center", va="center")
    rounds.set_title(f"Rounds to pass ({len(passed)} of {len(runs)} runs passed)")
    rounds.set_xlabel("rounds")
    rounds.set_ylabel("runs")
    rounds.xaxis.set_major_locator(MaxNLocator(integer=True))
    rounds.yaxis.set_major_locator(MaxNLocator(integer=True))
    rounds.grid(axis="y", alpha=0.3)

    try:
        figure.savefig(path, format="png", dpi=100)
    except OSError as error:
        raise UsageProblem(f"cannot write {path}: {error.strerror or error}") from error
