"""The figures of a report, per configuration, and the text tables that show them.

Only tasks that every configuration has a row for are counted ("complete" tasks), so a
report cut short still compares like with like. A row with an error counts as not solved
(the error count is shown; `--resume` runs those pairs again). Differences and wins/losses
are against the baseline, `single_shot`, on the same tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.effectiveness.configs import BASELINE
from benchmarks.effectiveness.report import Row


@dataclass(frozen=True)
class ConfigSummary:
    """One configuration's figures over the complete tasks."""

    name: str
    tasks: int
    solved: int
    errors: int
    delta_points: float | None
    """Pass rate minus the baseline's, in percentage points (None: no baseline)."""
    wins: int | None
    """Tasks this configuration solved and the baseline did not (None: no baseline)."""
    losses: int | None
    """Tasks the baseline solved and this configuration did not (None: no baseline)."""
    mean_rounds: float
    mean_calls: float
    mean_tokens: float
    tokens_estimated: bool
    wall_seconds: float
    """Total time the loop ran over the tasks."""
    visible_passes: int = 0
    """Results the loop's own checks passed (the run ended `passed`)."""
    visible_pass_hidden_fail: int = 0
    """Of those, the results the hidden grader fails (tests the examples did not cover)."""

    @property
    def pass_rate(self) -> float:
        """Solved tasks as a percentage of the tasks (0 when there are none)."""
        return 100.0 * self.solved / self.tasks if self.tasks else 0.0


@dataclass(frozen=True)
class Summary:
    """A report's figures: per configuration, per kind, and which tasks were counted."""

    configs: list[ConfigSummary]
    tasks: list[str]
    """The complete tasks: every configuration has a row for them."""
    partial: list[str]
    """Tasks only some configurations have a row for (left out of the figures)."""
    not_run: list[str]
    """Tasks no configuration has a row for yet."""
    by_kind: dict[str, dict[str, tuple[int, int]]]
    """kind -> configuration -> (solved, tasks)."""


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize(settings: dict[str, Any], rows: Sequence[Row], baseline: str = BASELINE) -> Summary:
    """Compute the figures of a report from its settings and rows."""
    configs: list[str] = list(settings["configs"])
    by_pair = {(row.task, row.config): row for row in rows}
    task_ids: list[str] = list(dict.fromkeys([*settings["task_ids"], *(r.task for r in rows)]))
    have = {task: [c for c in configs if (task, c) in by_pair] for task in task_ids}
    complete = [task for task in task_ids if len(have[task]) == len(configs)]
    partial = [task for task in task_ids if 0 < len(have[task]) < len(configs)]
    not_run = [task for task in task_ids if not have[task]]
    kinds = {by_pair[(task, configs[0])].kind for task in complete} if configs else set()
    by_kind: dict[str, dict[str, tuple[int, int]]] = {kind: {} for kind in sorted(kinds)}
    summaries = []
    for config in configs:
        mine = [by_pair[(task, config)] for task in complete]
        for kind in by_kind:
            of_kind = [row for row in mine if row.kind == kind]
            by_kind[kind][config] = (sum(row.solved for row in of_kind), len(of_kind))
        delta = wins = losses = None
        if baseline in configs:
            base = {task: by_pair[(task, baseline)].solved for task in complete}
            wins = sum(1 for row in mine if row.solved and not base[row.task])
            losses = sum(1 for row in mine if base[row.task] and not row.solved)
            solved_base = sum(base.values())
            delta = 100.0 * (sum(r.solved for r in mine) - solved_base) / len(mine) if mine else 0.0
        summaries.append(
            ConfigSummary(
                name=config,
                tasks=len(mine),
                solved=sum(row.solved for row in mine),
                errors=sum(row.error is not None for row in mine),
                delta_points=delta,
                wins=wins,
                losses=losses,
                mean_rounds=_mean([row.rounds for row in mine]),
                mean_calls=_mean([row.model_calls for row in mine]),
                mean_tokens=_mean([row.tokens for row in mine]),
                tokens_estimated=any(row.tokens_estimated for row in mine),
                wall_seconds=sum(row.wall_seconds for row in mine),
                visible_passes=sum(row.visible_pass for row in mine),
                visible_pass_hidden_fail=sum(row.visible_pass_hidden_fail for row in mine),
            )
        )
    return Summary(summaries, complete, partial, not_run, by_kind)


def _columns(header: list[str], body: list[list[str]], left: int = 1) -> list[str]:
    """Lay out a table: the first `left` columns left-aligned, the others right-aligned."""
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    return [
        "  ".join(
            cell.ljust(widths[i]) if i < left else cell.rjust(widths[i])
            for i, cell in enumerate(line)
        ).rstrip()
        for line in [header, *body]
    ]


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}"


def format_table(settings: dict[str, Any], summary: Summary, baseline: str = BASELINE) -> str:
    """Render the per-configuration table, with a heading that says what was run."""
    counts = ", ".join(f"{_total(by)} {kind}" for kind, by in summary.by_kind.items())
    heading = (
        f"critic-loop effectiveness: {settings['model']} at {settings.get('base_url') or '-'}; "
        f"{len(summary.tasks)} task(s) ({counts or 'none'}), at most {settings['rounds']} rounds"
    )
    header = [
        "config",
        "solved",
        "pass %",
        f"vs {baseline} (pts)",
        "wins/losses",
        "mean rounds",
        "mean calls",
        "mean tokens",
        "wall s",
        "errors",
        "passed visible, failed hidden",
    ]
    body = [
        [
            c.name,
            f"{c.solved}/{c.tasks}",
            f"{c.pass_rate:.1f}",
            "-" if c.name == baseline else _signed(c.delta_points),
            "-" if c.wins is None or c.name == baseline else f"{c.wins}/{c.losses}",
            f"{c.mean_rounds:.2f}",
            f"{c.mean_calls:.2f}",
            ("~" if c.tokens_estimated else "") + f"{c.mean_tokens:.0f}",
            f"{c.wall_seconds:.1f}",
            str(c.errors),
            f"{c.visible_pass_hidden_fail}/{c.visible_passes}",
        ]
        for c in summary.configs
    ]
    lines = [heading, "", *_columns(header, body)]
    if summary.by_kind:
        kind_header = ["pass rate by kind", *(c.name for c in summary.configs)]
        kind_body = []
        for kind, by in summary.by_kind.items():
            total = _total(by)
            cells = [f"{by[c.name][0]}/{total} {_percent(*by[c.name])}" for c in summary.configs]
            kind_body.append([f"{kind} ({total})", *cells])
        lines += ["", *_columns(kind_header, kind_body)]
    if summary.partial:
        lines.append(
            f"\nleft out: {len(summary.partial)} task(s) not yet run by every configuration: "
            + ", ".join(summary.partial)
        )
    if summary.not_run:
        lines.append(f"not run yet: {len(summary.not_run)} task(s)")
    return "\n".join(lines)


def _total(by_config: dict[str, tuple[int, int]]) -> int:
    """Count the tasks of a kind (every configuration has the same complete tasks)."""
    return next(iter(by_config.values()), (0, 0))[1]


def _percent(solved: int, total: int) -> str:
    return f"{100.0 * solved / total:.0f}%" if total else "-"


def _cell(row: Row | None) -> str:
    if row is None:
        return "."
    if row.error is not None:
        return "!"
    return ("+" if row.solved else "-") + str(row.rounds)


def format_matrix(settings: dict[str, Any], rows: Sequence[Row]) -> str:
    """Render the per-task matrix: one line per task, one cell per configuration."""
    configs: list[str] = list(settings["configs"])
    by_pair = {(row.task, row.config): row for row in rows}
    kinds = {row.task: row.kind for row in rows}
    task_ids = list(dict.fromkeys([*settings["task_ids"], *(r.task for r in rows)]))
    body = [
        [task, kinds.get(task, "?"), *(_cell(by_pair.get((task, c))) for c in configs)]
        for task in task_ids
    ]
    legend = "per task: + solved, - not solved, ! error, . not run; the number is the rounds"
    return "\n".join([legend, *_columns(["task", "kind", *configs], body, left=2)])


@dataclass(frozen=True)
class AgreementEffect:
    """What choosing by agreement did, against taking the first passing candidate."""

    config: str
    runs: int
    """Runs whose passing round had several candidates that passed the visible checks."""
    changed: int
    """Of those, the runs where agreement chose another than the first passing candidate."""
    gained: int
    """Runs where the chosen draft solves the task and the first passing one does not."""
    lost: int
    """Runs where the first passing draft solves the task and the chosen one does not."""


def agreement_effect(config: str, rows: Sequence[Row]) -> AgreementEffect:
    """Compare, per run, the draft agreement chose with the first that passed (`draft_grades`).

    The chosen draft is the passing one most candidates behaved like (ties to the first),
    as the critic ranks them; the counterfactual is the first passing candidate.
    """
    runs = changed = gained = lost = 0
    for row in rows:
        if row.config != config or not row.visible_pass:
            continue
        passing = [
            grade
            for grade in row.draft_grades
            if grade["round"] == row.final_round and grade["visible"]
        ]
        if len(passing) < 2:
            continue
        runs += 1
        first = min(passing, key=lambda grade: grade["candidate"])
        chosen = max(passing, key=lambda grade: (grade["support"], -grade["candidate"]))
        if chosen is not first:
            changed += 1
            gained += chosen["solved"] and not first["solved"]
            lost += first["solved"] and not chosen["solved"]
    return AgreementEffect(config, runs, changed, gained, lost)


def format_agreement(settings: dict[str, Any], rows: Sequence[Row]) -> str:
    """Render what agreement did, per configuration that ever chose among passing drafts."""
    effects = [agreement_effect(config, rows) for config in settings["configs"]]
    lines = [
        f"agreement ({effect.config}): {effect.runs} run(s) passed with several candidates; "
        f"it chose another than the first passing one in {effect.changed}, solving "
        f"{effect.gained} the first would not and losing {effect.lost}"
        for effect in effects
        if effect.runs
    ]
    return "\n".join(lines)


def format_report(settings: dict[str, Any], rows: Sequence[Row]) -> str:
    """Render the table, what agreement did, and the per-task matrix of a report."""
    summary = summarize(settings, rows)
    agreement = format_agreement(settings, rows)
    parts = [format_table(settings, summary), agreement, format_matrix(settings, rows)]
    return "\n\n".join(part for part in parts if part)
