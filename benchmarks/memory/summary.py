"""The figures of a memory report, and the text tables that show them.

Memory on and memory off are compared task by task: a (repeat, task) pair counts once both
modes have a row for it without an error (errored rows are listed; `--resume` runs them
again). The figures that answer "does memory help?" are over the families' later tasks:

- **rounds to pass**: the rounds a task took to pass, a task not passed within the round
  cap counting as cap + 1 (the fewest it could have needed); the mean per mode, and how
  much fewer memory on needed, in percent;
- **pass rate** at the same round cap, and its difference in percentage points;
- **passed in round 1**: the tasks that needed no revision at all.

The unrelated tasks show whether memory costs anything elsewhere: a task "did worse" with
memory on when it failed where memory off passed, or took more rounds. Then the cost (model
calls and tokens per task, the distiller's included), and what memory did: every rule
learned, the task it was learned on, and the tasks it was recalled into (its own family's,
another family's or an unrelated one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.harness.tables import columns, mean, share, signed
from benchmarks.memory.run import Step


@dataclass(frozen=True)
class Figures:
    """One mode's figures over a group of tasks."""

    tasks: int
    passed: int
    rounds_to_pass: float
    """Mean rounds to pass (not passed: the cap + 1)."""
    rounds: float
    """Mean graded rounds."""
    first_round: int
    """Tasks passed in round 1."""
    calls: float
    """Mean model calls per task (worker, critic, distiller)."""
    tokens: float
    """Mean tokens per task."""
    distiller_calls: int

    @property
    def pass_rate(self) -> float:
        """Passed tasks as a percentage (0 when there are none)."""
        return 100.0 * self.passed / self.tasks if self.tasks else 0.0


@dataclass(frozen=True)
class Comparison:
    """Memory off and on over the same tasks."""

    off: Figures
    on: Figures

    @property
    def fewer_rounds(self) -> float | None:
        """How many fewer rounds to pass memory on needed, in percent of memory off's."""
        if not self.off.tasks or not self.off.rounds_to_pass:
            return None
        return 100.0 * (1 - self.on.rounds_to_pass / self.off.rounds_to_pass)

    @property
    def points(self) -> float:
        """Memory on's pass rate minus memory off's, in percentage points."""
        return self.on.pass_rate - self.off.pass_rate


@dataclass(frozen=True)
class RuleUse:
    """A rule the memory-on sequence learned, and where it was recalled."""

    repeat: int
    text: str
    learned_on: str | None
    """The task it was learned on (None: not a task of this report)."""
    family: str | None
    recalled_into: list[tuple[str, str | None]]
    """(task, family) of every task it was given to."""

    @property
    def strays(self) -> list[str]:
        """The tasks it reached outside its own family."""
        return [task for task, family in self.recalled_into if family != self.family or not family]


@dataclass(frozen=True)
class Summary:
    """A report's figures."""

    cap: int
    later: Comparison
    first: Comparison
    unrelated: Comparison
    overall: Comparison
    by_family: dict[str, Comparison]
    """Per family, over its later tasks."""
    worse: list[str]
    """Unrelated tasks that did worse with memory on ("task (repeat N)")."""
    better: list[str]
    """Unrelated tasks that did better with memory on."""
    rules: list[RuleUse]
    pairs: int
    errors: list[str]
    """Rows that failed ("task, memory MODE, repeat N: error")."""
    not_run: int
    """Rows not run yet."""


def rounds_to_pass(row: Step, cap: int) -> int:
    """Return the rounds `row` took to pass, or `cap` + 1 if it did not pass."""
    return row.rounds if row.passed else cap + 1


def figures(rows: Sequence[Step], cap: int) -> Figures:
    """Compute one mode's figures over `rows`."""
    return Figures(
        tasks=len(rows),
        passed=sum(row.passed for row in rows),
        rounds_to_pass=mean([rounds_to_pass(row, cap) for row in rows]),
        rounds=mean([row.rounds for row in rows]),
        first_round=sum(row.passed and row.rounds == 1 for row in rows),
        calls=mean([row.model_calls for row in rows]),
        tokens=mean([row.tokens for row in rows]),
        distiller_calls=sum(row.distiller_calls for row in rows),
    )


def compare(pairs: Sequence[tuple[Step, Step]], cap: int) -> Comparison:
    """Compare memory off and on over (off, on) row pairs."""
    return Comparison(
        figures([off for off, _ in pairs], cap), figures([on for _, on in pairs], cap)
    )


def _did_worse(off: Step, on: Step) -> bool:
    return (off.passed and not on.passed) or (off.passed == on.passed and on.rounds > off.rounds)


def _rule_uses(data: dict[str, Any], rows: Sequence[Step]) -> list[RuleUse]:
    by_thread = {row.thread_id: row for row in rows}
    uses = []
    for name, rules in sorted((data.get("rules") or {}).items()):
        repeat = int(name.removeprefix("repeat"))
        recalls = [row for row in rows if row.repeat == repeat and row.config == "on"]
        for rule in rules:
            source = by_thread.get(rule.get("thread_id") or "")
            uses.append(
                RuleUse(
                    repeat=repeat,
                    text=rule["text"],
                    learned_on=source.task if source else None,
                    family=source.family if source else None,
                    recalled_into=[
                        (row.task, row.family)
                        for row in sorted(recalls, key=lambda r: r.position)
                        if any(given["id"] == rule["id"] for given in row.recalled)
                    ],
                )
            )
    return uses


def summarize(data: dict[str, Any], rows: Sequence[Step]) -> Summary:
    """Compute the figures of a loaded report (`data`) from its rows."""
    settings = data["settings"]
    cap = int(settings["rounds"])
    by_key = {row.key: row for row in rows}
    pairs: list[tuple[Step, Step]] = []
    errors = [
        f"{row.task}, memory {row.config}, repeat {row.repeat}: {row.error}"
        for row in rows
        if row.error is not None
    ]
    expected = int(settings["repeats"]) * len(settings["task_ids"])
    for repeat in range(1, int(settings["repeats"]) + 1):
        for task in settings["task_ids"]:
            off, on = by_key.get((repeat, "off", task)), by_key.get((repeat, "on", task))
            if off and on and off.error is None and on.error is None:
                pairs.append((off, on))
    later = [pair for pair in pairs if pair[0].later]
    first = [pair for pair in pairs if pair[0].family is not None and not pair[0].later]
    unrelated = [pair for pair in pairs if pair[0].family is None]
    families = list(dict.fromkeys(settings.get("families", {})))
    return Summary(
        cap=cap,
        later=compare(later, cap),
        first=compare(first, cap),
        unrelated=compare(unrelated, cap),
        overall=compare(pairs, cap),
        by_family={
            family: compare([p for p in later if p[0].family == family], cap) for family in families
        },
        worse=[f"{off.task} (repeat {off.repeat})" for off, on in unrelated if _did_worse(off, on)],
        better=[
            f"{off.task} (repeat {off.repeat})" for off, on in unrelated if _did_worse(on, off)
        ],
        rules=_rule_uses(data, rows),
        pairs=len(pairs),
        errors=errors,
        not_run=2 * expected - len(rows),
    )


def format_table(data: dict[str, Any], summary: Summary) -> str:
    """Render the headline table: later, first and unrelated tasks, and the cost."""
    settings = data["settings"]
    heading = (
        f"critic-loop memory benchmark: {settings['model']} at {settings.get('base_url') or '-'}; "
        f"{len(settings.get('families', {}))} families and their tasks interleaved with "
        f"unrelated tasks, {len(settings['task_ids'])} tasks per sequence, "
        f"{settings['repeats']} repeat(s), at most {summary.cap} rounds"
    )
    later, first, unrelated, overall = (
        summary.later,
        summary.first,
        summary.unrelated,
        summary.overall,
    )

    def both(comparison: Comparison, figure: str, form: str = "{:.2f}") -> list[str]:
        values = (getattr(comparison.off, figure), getattr(comparison.on, figure))
        return [form.format(value) for value in values]

    def passed(comparison: Comparison, figure: str = "passed") -> list[str]:
        off, on = comparison.off, comparison.on
        return [share(getattr(off, figure), off.tasks), share(getattr(on, figure), on.tasks)]

    fewer = later.fewer_rounds
    body = [
        [f"later family tasks ({later.off.tasks})", "", "", ""],
        [
            "  rounds to pass",
            *both(later, "rounds_to_pass"),
            "-" if fewer is None else f"{-fewer:+.0f}%",
        ],
        ["  passed", *passed(later), signed(later.points, " pts")],
        ["  passed in round 1", *passed(later, "first_round"), ""],
        [f"first family tasks ({first.off.tasks})", "", "", ""],
        ["  rounds to pass", *both(first, "rounds_to_pass"), ""],
        ["  passed", *passed(first), ""],
        [f"unrelated tasks ({unrelated.off.tasks})", "", "", ""],
        ["  rounds to pass", *both(unrelated, "rounds_to_pass"), ""],
        ["  passed", *passed(unrelated), signed(unrelated.points, " pts")],
        ["  did worse with memory on", "", str(len(summary.worse)), ""],
        [f"every task ({overall.off.tasks})", "", "", ""],
        ["  model calls per task", *both(overall, "calls"), ""],
        ["  tokens per task", *both(overall, "tokens", "{:.0f}"), ""],
        ["  distiller calls (all tasks)", *both(overall, "distiller_calls", "{}"), ""],
    ]
    lines = [heading, "", *columns(["", "memory off", "memory on", "change"], body)]
    if summary.worse:
        lines.append(f"\nunrelated tasks that did worse with memory on: {', '.join(summary.worse)}")
    if summary.better:
        lines.append(f"unrelated tasks that did better with memory on: {', '.join(summary.better)}")
    return "\n".join(lines)


def format_families(data: dict[str, Any], summary: Summary) -> str:
    """Render the per-family table (later tasks)."""
    requirements: dict[str, str] = data["settings"].get("families", {})
    body = []
    for family, comparison in summary.by_family.items():
        recalled = sum(
            1
            for use in summary.rules
            for _, into in use.recalled_into
            if into == family and use.family == family
        )
        body.append(
            [
                family,
                requirements.get(family, "").split(":")[0],
                f"{comparison.off.rounds_to_pass:.2f}",
                f"{comparison.on.rounds_to_pass:.2f}",
                share(comparison.off.passed, comparison.off.tasks),
                share(comparison.on.passed, comparison.on.tasks),
                str(recalled),
            ]
        )
    header = [
        "family (later tasks)",
        "requirement",
        "rounds off",
        "rounds on",
        "passed off",
        "passed on",
        "own rules recalled",
    ]
    return "\n".join(columns(header, body, left=2))


def format_rules(summary: Summary) -> str:
    """Render the rules learned and where each was recalled."""
    if not summary.rules:
        return "rules learned (memory on): none"
    body = [
        [
            str(use.repeat),
            use.text if len(use.text) <= 70 else use.text[:67] + "...",
            use.learned_on or "?",
            ", ".join(task for task, _ in use.recalled_into) or "-",
        ]
        for use in summary.rules
    ]
    given = sum(len(use.recalled_into) for use in summary.rules)
    strays = [f"{task} ({use.learned_on})" for use in summary.rules for task in use.strays]
    footer = (
        f"recall: {given} rule(s) given to tasks, {given - len(strays)} to the family they were "
        f"learned in, {len(strays)} elsewhere" + (f": {', '.join(strays)}" if strays else "")
    )
    header = ["repeat", "rule learned (memory on)", "learned on", "recalled into"]
    return "\n".join([*columns(header, body, left=4), footer])


def _cell(row: Step | None) -> str:
    if row is None:
        return "."
    if row.error is not None:
        return "!"
    mark = ("+" if row.passed else "-") + str(row.rounds)
    return mark + (f" r{len(row.recalled)}" if row.recalled else "")


def format_matrix(data: dict[str, Any], rows: Sequence[Step]) -> str:
    """Render the per-task matrix: one line per task of each repeat, memory off and on."""
    settings = data["settings"]
    by_key = {row.key: row for row in rows}
    families = {row.task: row.family or "unrelated" for row in rows}
    orders = settings.get("sequences") or [settings["task_ids"]] * int(settings["repeats"])
    body = [
        [
            str(repeat),
            task,
            families.get(task, "?"),
            _cell(by_key.get((repeat, "off", task))),
            _cell(by_key.get((repeat, "on", task))),
        ]
        for repeat, order in enumerate(orders, 1)
        for task in order
    ]
    legend = (
        "per task, in sequence order: + passed, - not passed, ! error, . not run; the number "
        "is the rounds; rN: N rules recalled"
    )
    return "\n".join([legend, *columns(["repeat", "task", "family", "off", "on"], body, left=3)])


def format_report(data: dict[str, Any]) -> str:
    """Render every table of a report."""
    rows = [Step.from_json(row) for row in data["rows"]]
    summary = summarize(data, rows)
    parts = [
        format_table(data, summary),
        format_families(data, summary),
        format_rules(summary),
        format_matrix(data, rows),
    ]
    notes = []
    if summary.errors:
        notes.append(f"errors ({len(summary.errors)}, left out; --resume runs them again):")
        notes += [f"  {error.splitlines()[0][:160]}" for error in summary.errors]
    if summary.not_run > 0:
        notes.append(f"not run yet: {summary.not_run} row(s)")
    return "\n\n".join(parts + (["\n".join(notes)] if notes else []))
