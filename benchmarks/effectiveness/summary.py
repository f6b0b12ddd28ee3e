"""The figures of an effectiveness report, per configuration, and the tables that show them.

Only tasks that every configuration has a row for are counted ("complete" tasks), so a
report cut short still compares like with like; a row with an error counts as not solved.
Points and wins/losses are against the baseline, `single_shot`, on the same tasks. The
figures are given for every task, then for each kind (coding, writing, judged) apart.
Where judged tasks are counted, the tables add the criteria the final drafts truly meet, the
loop's false passes on them and its degenerate finals, and the report ends with rows in the
shape of the README's table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.effectiveness.configs import BASELINE
from benchmarks.effectiveness.report import Run
from benchmarks.harness.tables import columns, mean, share, signed


@dataclass(frozen=True)
class Figures:
    """One configuration's figures over a group of complete tasks."""

    name: str
    tasks: int
    solved: int
    some_solved: int
    """Tasks where some draft of the run passed the hidden grader (the result or another)."""
    errors: int
    delta_points: float | None
    """Pass rate minus the baseline's, in percentage points (None: no baseline)."""
    wins: int | None
    losses: int | None
    rounds: float
    calls: int
    tokens: int
    tokens_estimated: bool
    wall_seconds: float
    visible_passes: int
    """Results the loop's own checks passed (the run ended `passed`)."""
    hidden_fails: int
    """Of those, the results the hidden grader fails."""
    criteria_met: int = 0
    """Judged criteria the final drafts truly meet (by their hidden graders)."""
    criteria: int = 0
    """Judged criteria of the tasks counted."""
    declared: int = 0
    """Judged criteria the runs declared their final drafts pass."""
    false_passes: int = 0
    """Of those, the ones the hidden graders fail."""
    degenerate: int = 0
    """Final drafts under 40% of their run's first draft's length that fail their grading."""

    def per(self, total: int, *, solved: bool = False, digits: int = 2) -> str:
        """`total` per task, or per solved task."""
        count = self.solved if solved else self.tasks
        return f"{total / count:.{digits}f}" if count else "-"


def figures(name: str, rows: Sequence[Run], base: dict[str, bool] | None) -> Figures:
    """One configuration's figures over its `rows`; `base`: the baseline's solved, by task."""
    solved = sum(row.solved for row in rows)
    wins = losses = delta = None
    if base is not None:
        wins = sum(row.solved and not base[row.task] for row in rows)
        losses = sum(base[row.task] and not row.solved for row in rows)
        baseline = sum(base[row.task] for row in rows)
        delta = 100.0 * (solved - baseline) / len(rows) if rows else 0.0
    return Figures(
        name=name,
        tasks=len(rows),
        solved=solved,
        some_solved=sum(row.some_draft_solved for row in rows),
        errors=sum(row.error is not None for row in rows),
        delta_points=delta,
        wins=wins,
        losses=losses,
        rounds=mean([row.rounds for row in rows]),
        calls=sum(row.model_calls for row in rows),
        tokens=sum(row.tokens for row in rows),
        tokens_estimated=any(row.tokens_estimated for row in rows),
        wall_seconds=sum(row.wall_seconds for row in rows),
        visible_passes=sum(row.visible_pass for row in rows),
        hidden_fails=sum(row.visible_pass and not row.solved for row in rows),
        criteria_met=sum(sum(row.judged_met.values()) for row in rows),
        criteria=sum(len(row.judged_met) for row in rows),
        declared=sum(len(row.declared_passed) for row in rows),
        false_passes=sum(len(row.false_passes) for row in rows),
        degenerate=sum(row.degenerate for row in rows),
    )


def complete(
    settings: dict[str, Any], rows: Sequence[Run]
) -> tuple[list[str], list[str], list[str]]:
    """Return the tasks every configuration ran, those only some ran, and those none ran yet."""
    configs = settings["configs"]
    have: dict[str, set[str]] = {}
    for row in rows:
        have.setdefault(row.task, set()).add(row.config)
    tasks = list(dict.fromkeys([*settings["task_ids"], *have]))
    done = [task for task in tasks if have.get(task, set()) >= set(configs)]
    partial = [task for task in tasks if have.get(task) and task not in done]
    return done, partial, [task for task in tasks if not have.get(task)]


def summarize(settings: dict[str, Any], rows: Sequence[Run]) -> dict[str, list[Figures]]:
    """Every configuration's figures over the complete tasks: all of them, then per kind."""
    done = set(complete(settings, rows)[0])
    mine = [row for row in rows if row.task in done and row.config in settings["configs"]]
    groups = {"all": mine}
    for kind in sorted({row.kind for row in mine}):
        groups[kind] = [row for row in mine if row.kind == kind]
    result = {}
    for group, members in groups.items():
        base = None
        if BASELINE in settings["configs"]:
            base = {row.task: row.solved for row in members if row.config == BASELINE}
        result[group] = [
            figures(config, [row for row in members if row.config == config], base)
            for config in settings["configs"]
        ]
    return result


def format_table(group: str, all_figures: list[Figures]) -> str:
    """One group's table: a line per configuration."""
    tasks = all_figures[0].tasks if all_figures else 0
    header = [
        f"{group} ({tasks})",
        "solved",
        f"vs {BASELINE}",
        "wins/losses",
        "some draft solved",
        "calls/task",
        "calls/solved",
        "tokens/task",
        "tokens/solved",
        "rounds",
        "wall s",
        "errors",
        "passed visible, failed hidden",
    ]
    judged = any(f.criteria for f in all_figures)
    if judged:
        header += ["criteria met", "false passes", "degenerate"]
    body = [
        [
            f.name,
            share(f.solved, f.tasks),
            "-" if f.name == BASELINE else signed(f.delta_points, " pts"),
            "-" if f.wins is None or f.name == BASELINE else f"{f.wins}/{f.losses}",
            share(f.some_solved, f.tasks),
            f.per(f.calls),
            f.per(f.calls, solved=True),
            ("~" if f.tokens_estimated else "") + f.per(f.tokens, digits=0),
            f.per(f.tokens, solved=True, digits=0),
            f"{f.rounds:.2f}",
            f"{f.wall_seconds:.0f}",
            str(f.errors),
            f"{f.hidden_fails}/{f.visible_passes}",
            *(
                [share(f.criteria_met, f.criteria), share(f.false_passes, f.declared)]
                + [str(f.degenerate)]
                if judged
                else []
            ),
        ]
        for f in all_figures
    ]
    return "\n".join(columns(header, body))


README_HEADER = (
    "| configuration | criteria truly met | solved | declared passes wrong | degenerate finals "
    "| calls per task | tokens per task |\n|---|---|---|---|---|---|---|"
)


def readme_rows(all_figures: list[Figures]) -> str:
    """Render the judged figures as rows of a Markdown table, in the README's words."""
    names = {BASELINE: "one shot", "default": "the defaults"}
    rows = [
        f"| {names.get(f.name, f.name)}, {f.tasks} judged tasks "
        f"| {f.criteria_met} of {f.criteria} ({_percent(f.criteria_met, f.criteria)}) "
        f"| {f.solved} ({_percent(f.solved, f.tasks)}) "
        + (
            f"| {f.false_passes} of {f.declared} ({_percent(f.false_passes, f.declared)}) "
            if f.declared
            else "| - (declares none) "
        )
        + f"| {f.degenerate} | {f.per(f.calls, digits=1)} | {f.per(f.tokens, digits=0)} |"
        for f in all_figures
    ]
    return "\n".join([README_HEADER, *rows])


def _percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "-"


def _cell(row: Run | None) -> str:
    if row is None:
        return "."
    if row.error is not None:
        return "!"
    cell = ("+" if row.solved else "-") + str(row.rounds)
    if row.judged_met:
        cell += f" {sum(row.judged_met.values())}/{len(row.judged_met)}"
        cell += "*" * len(row.false_passes) + ("<" if row.degenerate else "")
    return cell


def format_matrix(settings: dict[str, Any], rows: Sequence[Run]) -> str:
    """One line per task, one cell per configuration."""
    by_cell = {(row.task, row.config): row for row in rows}
    kinds = {row.task: row.kind for row in rows}
    tasks = list(dict.fromkeys([*settings["task_ids"], *kinds]))
    body = [
        [task, kinds.get(task, "?"), *(_cell(by_cell.get((task, c))) for c in settings["configs"])]
        for task in tasks
    ]
    legend = "per task: + solved, - not solved, ! error, . not run; the number is the rounds"
    if any(row.judged_met for row in rows):
        legend += (
            "; then judged criteria truly met, a * for each false pass on the final, "
            "< for a degenerate final"
        )
    return "\n".join([legend, *columns(["task", "kind", *settings["configs"]], body, left=2)])


def agreement_effect(config: str, rows: Sequence[Run]) -> tuple[int, int, int, int]:
    """Count what choosing by agreement did against taking the first passing candidate.

    Returns (runs whose passing round had several passing candidates, runs where agreement
    chose another, runs it solved that the first would not, runs it lost).
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
    return runs, changed, gained, lost


def visible_group(count: int) -> str:
    """Return a coding task's group by its visible tests: "0", "1", "2" or "3+"."""
    return str(count) if count < 3 else "3+"


def hidden_fails_by_visible(settings: dict[str, Any], rows: Sequence[Run]) -> str:
    """Per configuration, coding results passed visible and failed hidden, by visible tests.

    A cell reads `failed hidden/passed visible share` over the complete coding tasks of
    that group; empty when no row records its visible tests.
    """
    done = set(complete(settings, rows)[0])
    coding = [r for r in rows if r.task in done and r.visible_tests is not None]
    groups: dict[str, list[Run]] = {}
    for row in sorted(coding, key=lambda row: row.visible_tests or 0):
        groups.setdefault(visible_group(row.visible_tests or 0), []).append(row)
    body = []
    for label, group in groups.items():
        cells = []
        for config in settings["configs"]:
            passed = [r for r in group if r.config == config and r.visible_pass]
            cells.append(share(sum(not r.solved for r in passed), len(passed)))
        body.append([f"{label} ({len({r.task for r in group})})", *cells])
    if not body:
        return ""
    title = "coding: passed visible, failed hidden, by the task's visible tests"
    return "\n".join([title, *columns(["visible tests (tasks)", *settings["configs"]], body)])


def format_report(data: dict[str, Any]) -> str:
    """Render the tables (all tasks, then per kind), what agreement did, and the matrix."""
    settings = data["settings"]
    rows = [Run.from_json(row) for row in data["rows"]]
    done, partial, not_run = complete(settings, rows)
    heading = (
        f"critic-loop effectiveness ({settings.get('tier', 'project')} tier): "
        f"{settings['model']} at {settings.get('base_url') or '-'}; {len(done)} task(s) run by "
        f"every configuration, at most {settings['rounds']} rounds"
    )
    groups = summarize(settings, rows)
    tables = [format_table(group, f) for group, f in groups.items()]
    tables.append(hidden_fails_by_visible(settings, rows))
    if any(f.criteria for f in groups.get("judged", [])):
        tables.append("README rows (judged tasks):\n" + readme_rows(groups["judged"]))
    notes = []
    for config in settings["configs"]:
        runs, changed, gained, lost = agreement_effect(config, rows)
        if runs:
            notes.append(
                f"agreement ({config}): {runs} run(s) passed with several candidates; it chose "
                f"another than the first passing one in {changed}, solving {gained} the first "
                f"would not and losing {lost}"
            )
    if partial:
        notes.append(f"left out: {len(partial)} task(s) not yet run by every configuration")
    if not_run:
        notes.append(f"not run yet: {len(not_run)} task(s)")
    parts = [heading, *tables, "\n".join(notes), format_matrix(settings, rows)]
    return "\n\n".join(part for part in parts if part)
