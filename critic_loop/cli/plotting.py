"""Draw `critic-loop stats --plot FILE.png` (the `plot` extra's matplotlib, imported then).

Drawn on matplotlib's Agg canvas directly: no GUI backend, pyplot's global state untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from critic_loop.errors import UsageProblem
from critic_loop.extras import missing_extra_message

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


def plot_runs(runs: Sequence[RunFigures], path: Path, title: str) -> None:
    """Write a PNG of two panels: best score by round (per run and mean), rounds to pass.

    A round's mean is over the runs that reached it, and each point says how many did:
    runs that pass early stop, so later rounds hold the runs still failing, and a mean
    that drops there is read as such, not as runs getting worse.

    Raises:
        UsageProblem: matplotlib is missing, or the file cannot be written.
    """
    require_matplotlib()
    import numpy
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(11, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    scores, rounds = figure.subplots(1, 2)
    figure.suptitle(title)

    if len(runs) <= MAX_LINES:
        for run in runs:
            numbers = range(1, len(run.best_by_round) + 1)
            scores.plot(numbers, run.best_by_round, color="tab:blue", alpha=0.25, linewidth=1)
    longest = max((len(run.best_by_round) for run in runs), default=0)
    reached = [
        [run.best_by_round[index] for run in runs if len(run.best_by_round) > index]
        for index in range(longest)
    ]
    if reached:
        numbers = range(1, longest + 1)
        means = [sum(values) / len(values) for values in reached]
        lows, highs = zip(*(numpy.percentile(values, [10, 90]) for values in reached), strict=True)
        scores.fill_between(numbers, lows, highs, color="tab:blue", alpha=0.15, label="10-90%")
        label = "mean over the runs that reached the round"
        scores.plot(numbers, means, color="tab:blue", linewidth=2.5, marker="o", label=label)
        for number, mean, values in zip(numbers, means, reached, strict=True):
            count = f"{len(values)} run{'s' if len(values) != 1 else ''}"
            scores.annotate(
                count,
                (number, mean),
                textcoords="offset points",
                xytext=(0, 8),
                ha="center",
                fontsize=8,
            )
        scores.legend(loc="lower right", fontsize=8)
    scores.set(
        title="Best score by round (runs that reached it, and how many)",
        xlabel="round",
        ylabel="best weighted score so far",
        ylim=(-0.02, 1.05),
    )
    scores.xaxis.set_major_locator(MaxNLocator(integer=True))
    scores.grid(alpha=0.3)

    passed = [run.rounds for run in runs if run.outcome == "passed"]
    if passed:
        edges = [number - 0.5 for number in range(1, max(passed) + 2)]
        rounds.hist(passed, bins=edges, color="tab:green", edgecolor="white")
    else:
        rounds.text(0.5, 0.5, "no passed runs", ha="center", va="center")
    rounds.set(
        title=f"Rounds to pass ({len(passed)} of {len(runs)} runs passed)",
        xlabel="rounds",
        ylabel="runs",
    )
    rounds.xaxis.set_major_locator(MaxNLocator(integer=True))
    rounds.yaxis.set_major_locator(MaxNLocator(integer=True))
    rounds.grid(axis="y", alpha=0.3)

    try:
        figure.savefig(path, format="png", dpi=100)
    except OSError as error:
        raise UsageProblem(f"cannot write {path}: {error.strerror or error}") from error
