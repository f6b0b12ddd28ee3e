"""`critic-loop runs`, `show` and `stats`: look back at the runs a database holds (read only)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from critic_loop.cli.context_options import SectionedCommand, db_option, json_option, option
from critic_loop.errors import UsageProblem

if TYPE_CHECKING:
    from critic_loop.cli.stored_threads import Thread
    from critic_loop.state.records import Critique, Draft, WorkerFeedback

TASK_WIDTH = 40


def when(moment: datetime | None, seconds: bool = True) -> str:
    """Format a time (UTC, to the second or the minute), or "-" when unknown."""
    if moment is None:
        return "-"
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def _times(thread: Thread) -> dict[str, str | None]:
    moments = {name: getattr(thread, name) for name in ("started_at", "ended_at", "updated_at")}
    return {name: None if at is None else at.isoformat() for name, at in moments.items()}


def cut(text: str, width: int) -> str:
    """Return the first line of `text`, cut to `width` characters (marked with "...")."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= width else line[: width - 3].rstrip() + "..."


def echo_json(data: Any) -> None:
    """Print `data` as indented JSON (times and models become strings and objects)."""
    click.echo(json.dumps(to_jsonable_python(data), indent=2, ensure_ascii=False))


def _run_summary(thread: Thread) -> dict[str, Any]:
    return {
        "thread_id": thread.thread_id,
        "outcome": thread.outcome,
        "finished": thread.finished,
        "rounds": thread.rounds,
        **_times(thread),
        "scope": thread.scope,
        "task": thread.task,
    }


def runs_table(threads: Sequence[Thread]) -> list[str]:
    """Lay the runs out as a plain-text table, one line each."""
    header = ("THREAD", "OUTCOME", "ROUNDS", "STARTED (UTC)", "ENDED (UTC)", "SCOPE", "TASK")
    rows = [
        (
            thread.thread_id,
            thread.outcome or "unfinished",
            str(thread.rounds),
            when(thread.started_at, seconds=False),
            when(thread.ended_at, seconds=False),
            thread.scope or "-",
            cut(thread.task, TASK_WIDTH),
        )
        for thread in threads
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header) - 1)]

    def line(row: Sequence[str]) -> str:
        cells = [
            cell.rjust(width) if index == 2 else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        return "  ".join([*cells, row[-1]]).rstrip()

    return [line(header), *(line(row) for row in rows)]


@click.command(cls=SectionedCommand)
@db_option
@option(
    "--limit",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    section="What",
    help="Show at most this many runs (0: all).",
)
@json_option("the runs")
def runs(db: str | None, limit: int, as_json: bool) -> None:
    """List recent runs, most recently active first.

    For each thread: its outcome (or "unfinished"), rounds graded, when it started and
    ended (UTC), its memory scope and its task's first line. `critic-loop show THREAD`
    tells the whole story of one.
    """
    from critic_loop.cli.stored_threads import open_database, recent_threads

    with open_database(db) as persistence:
        threads = recent_threads(persistence.checkpointer, limit or None)
        where = persistence.location
    if as_json:
        echo_json([_run_summary(thread) for thread in threads])
    elif not threads:
        click.echo(f"no runs in {where}")
    else:
        click.echo("\n".join(runs_table(threads)))


def _criterion_lines(critique: Critique) -> list[str]:
    verdict = critique.verdict
    if verdict is None:
        return []
    lines = []
    for result in verdict.results:
        mark = "[ -- ]" if result.skipped else "[pass]" if result.passed else "[FAIL]"
        terminal = ["cannot be met"] if result.terminal else []
        about = _about(result.severity, result.weight, result.source, *terminal)
        evidence = result.evidence.strip().splitlines() or ["(no evidence)"]
        lines.append(f"  {mark} {result.criterion_id} ({about}): {evidence[0]}")
        lines += [f"         {more}" for more in evidence[1:]]
        if result.hint and not result.passed:
            lines.append(f"         hint: {result.hint}")
        if result.votes:
            votes = ", ".join(
                f"{judge} {'pass' if vote else 'fail'}" for judge, vote in result.votes.items()
            )
            lines.append(f"         votes: {votes}")
    if verdict.feedback.strip():
        lines.append(f"  critic's note: {verdict.feedback.strip()}")
    return lines


def _about(severity: str, weight: float, *more: str) -> str:
    return ", ".join([severity, *([f"x{weight:g}"] if weight != 1 else []), *more])


def _usage(what: str, usage: Any) -> str:
    estimated = " (estimated)" if usage.estimated else ""
    return f"{what} tokens {usage.input_tokens} in / {usage.output_tokens} out{estimated}"


def _draft_label(draft: Draft) -> str:
    label = f"round {draft.round}"
    return label + (f", candidate {draft.candidate}" if draft.candidate > 1 else "")


def _origin(draft: Draft) -> str:
    if draft.origin == "revision":
        revised = f" of round {draft.revises.round}" if draft.revises else ""
        if draft.revises and draft.revises.candidate > 1:
            revised += f" (candidate {draft.revises.candidate})"
        return "revision" + revised
    return "fresh sample" if draft.origin == "resample" else "first draft"


def _revised_draft(draft: Draft, drafts: Sequence[Draft]) -> Draft | None:
    if draft.origin != "revision":
        return None
    if draft.revises is not None:
        return next((d for d in drafts if d.ref == draft.revises), None)
    earlier = [d for d in drafts if d.round < draft.round]
    return earlier[-1] if earlier else None


def _draft_lines(draft: Draft, drafts: Sequence[Draft], diff: bool) -> list[str]:
    if draft.stopped is not None:
        calls = f"{draft.attempts} worker call(s)"
        return [f"--- no draft, {_draft_label(draft)} ({calls}): {draft.stopped} ---"]
    about = f"{_origin(draft)}, {len(draft.text)} characters, {_usage('worker', draft.usage)}"
    if draft.full_length is not None:
        about += f"; cut from {draft.full_length} characters"
    base = _revised_draft(draft, drafts) if diff else None
    if base is not None:
        changes = difflib.unified_diff(
            base.text.splitlines(),
            draft.text.splitlines(),
            fromfile=_draft_label(base),
            tofile=_draft_label(draft),
            lineterm="",
        )
        heading = f"--- draft, {_draft_label(draft)} ({about}); changes ---"
        return [heading, *(list(changes) or ["(no changes)"])]
    return [f"--- draft, {_draft_label(draft)} ({about}) ---", draft.text]


def _critique_lines(critique: Critique) -> list[str]:
    from critic_loop.cli.display import round_label, verdict_line
    from critic_loop.nodes.events import verdict_event

    event = verdict_event(critique)
    summary = verdict_line(event).removeprefix(f"{round_label(event)}: ")
    calls = f"critic: {critique.attempts} call(s), {_usage('critic', critique.usage)}"
    lines = [f"verdict: {summary}", f"  {calls}"]
    lines += [f"  rejected answer: {reason}" for reason in critique.rejected]
    return lines + _criterion_lines(critique)


def _feedback_lines(note: WorkerFeedback | None) -> list[str]:
    if note is None:
        return []
    lines = ["feedback to the worker:"]
    if note.summary.strip():
        lines.append(f"  {note.summary.strip()}")
    return lines + [f"  - {hint}" for hint in note.hints]


def _rubric_lines(rubric: Any) -> list[str]:
    lines = ["rubric:"]
    for criterion in rubric or []:
        if not isinstance(criterion, Mapping):
            criterion = getattr(criterion, "model_dump", lambda: {})()
        about = _about(
            criterion.get("severity", "must"),
            criterion.get("weight", 1),
            criterion.get("kind", "llm"),
        )
        text = str(criterion.get("text") or "").strip()
        lines.append(f"  {criterion.get('id')} ({about})" + (f": {text}" if text else ""))
    return lines


def story(thread: Thread, diff: bool) -> list[str]:
    """Tell a run round by round: drafts, verdicts, evidence and hints, feedback, outcome."""
    from critic_loop.cli.stored_threads import round_seconds

    drafts, critiques, feedback = thread.records()
    seconds = round_seconds(thread.line)
    status = thread.outcome or "unfinished"
    lines = [f"thread {thread.thread_id}: {status} after {thread.rounds} round(s)"]
    times = f"started {when(thread.started_at)} UTC"
    if thread.finished and thread.started_at and thread.ended_at:
        took = (thread.ended_at - thread.started_at).total_seconds()
        times += f", ended {when(thread.ended_at)} UTC ({took:.2f} s)"
    else:
        times += f", last step {when(thread.updated_at)} UTC"
    lines += [times, "task:", *(f"  {line}" for line in thread.task.splitlines())]
    lines += _rubric_lines(thread.values.get("rubric"))
    if thread.pruned_at:
        lines.append(
            f"history pruned {thread.pruned_at}: its drafts and critiques are gone; the "
            f"outcome and the final draft (round {thread.values.get('final_round')}) were kept"
        )
    recalled = thread.values.get("recalled_rules") or []
    if recalled:
        lines.append(f"memory: {len(recalled)} rule(s) recalled from scope {thread.scope!r}")
        lines += [f"  - {rule.get('text')}" for rule in recalled if isinstance(rule, Mapping)]
    notes = {note.ref: note for note in feedback}
    for number in range(1, max((d.round for d in drafts), default=0) + 1):
        timed = f" ({seconds[number]:.2f} s)" if number in seconds else ""
        lines += ["", f"=== round {number}{timed} ==="]
        for draft in (d for d in drafts if d.round == number):
            lines += _draft_lines(draft, drafts, diff)
            critique = next((c for c in critiques if c.ref == draft.ref), None)
            if critique is None:
                lines.append("(not graded yet)")
                continue
            if critique.duplicate_of is None:
                lines += _critique_lines(critique)
            else:  # its verdict is shown once, with the draft it repeats
                lines.append(
                    f"verdict: as round {critique.duplicate_of.round}'s (the same draft: "
                    "not graded again)"
                )
            lines += _feedback_lines(notes.get(draft.ref))
        lines += _review_lines(thread.values.get("reviews") or [], number)
    return lines


def _review_lines(reviews: Sequence[Any], round_number: int) -> list[str]:
    lines = []
    for review in reviews:
        if not isinstance(review, Mapping) or review.get("at_round") != round_number:
            continue
        reviewed = review.get("draft") or {}
        line = (
            f"review ({review.get('asked_because')}): {review.get('action')} "
            f"the draft of round {reviewed.get('round')}"
        )
        if review.get("action") == "override":
            result = "passed" if review.get("passed") else "failed"
            line += f"; {review.get('criterion_id')} now {result}"
        lines.append(line)
        said = (review.get("feedback"), review.get("note"))
        lines += [f"  the person said: {words}" for words in said if words]
    return lines


def _ending(thread: Thread) -> None:
    from critic_loop.cli.display import show_result
    from critic_loop.state.loop import LoopState

    if not thread.finished:
        click.echo(
            f"\nunfinished: run it again with --thread-id {thread.thread_id} to resume it "
            "from its last step"
        )
        return
    try:
        state = LoopState.model_validate(thread.values)
    except ValidationError:
        click.echo(f"\noutcome: {thread.outcome} after {thread.rounds} round(s)")
        click.echo(f"  why: {thread.values.get('outcome_reason')}")
        click.echo(f"\n--- final draft ---\n{thread.values.get('final')}")
        return
    show_result(state, thread.thread_id)


@click.command(cls=SectionedCommand)
@click.argument("thread_id", metavar="THREAD")
@db_option
@option(
    "--diff",
    is_flag=True,
    section="Output",
    help="Show each revision as a unified diff against the draft it revises.",
)
@json_option("the thread's values (with its times)")
def show(thread_id: str, db: str | None, diff: bool, as_json: bool) -> None:
    """Tell the story of one run, round by round.

    Every draft (and candidate), the verdict on it with each criterion's evidence and
    hint, the feedback the worker was given, then the outcome, its reason and the final
    draft. THREAD is a thread id as `critic-loop runs` lists it.
    """
    from critic_loop.cli.stored_threads import open_database, read_thread, round_seconds

    with open_database(db) as persistence:
        thread = read_thread(persistence.checkpointer, thread_id, persistence.location)
    if as_json:
        echo_json(
            {
                "thread_id": thread.thread_id,
                "finished": thread.finished,
                "pruned_at": thread.pruned_at,
                **_times(thread),
                "round_seconds": {str(n): s for n, s in round_seconds(thread.line).items()},
                "values": thread.values,
            }
        )
        return
    click.echo("\n".join(story(thread, diff)))
    _ending(thread)


def _number(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.{digits}f}"


def share(part: int, whole: int) -> str:
    """Write `part` of `whole` as "3/4 (75%)" ("-" of nothing)."""
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def _report_lines(figures: Mapping[str, Any]) -> list[str]:
    scope = f" in scope {figures['scope']!r}" if figures["scope"] else ""
    lines = [
        f"finished runs{scope}: {figures['runs']}"
        + (f" (unfinished, not counted: {figures['unfinished']})" if figures["unfinished"] else "")
    ]
    if not figures["runs"]:
        return lines
    outcomes = ", ".join(f"{name} {count}" for name, count in figures["outcomes"].items())
    lines.append(f"outcomes: {outcomes} (pass rate {100 * figures['pass_rate']:.0f}%)")
    limits = figures["exhausted_by"]
    if limits:
        reached = ", ".join(f"{name} {count}" for name, count in limits.items())
        lines.append(f"  exhausted by: {reached}")
    calls = figures["model_calls_per_run"]
    if calls["count"]:
        lines.append(
            f"model calls per run (every role): median {_number(calls['median'], 0)}, "
            f"p90 {_number(calls['p90'], 0)}, mean {_number(calls['mean'])}"
        )
    rounds = figures["rounds_to_pass"]
    if rounds["count"]:
        lines.append(
            f"rounds to pass: median {_number(rounds['median'])}, p90 {_number(rounds['p90'])}, "
            f"mean {_number(rounds['mean'])} ({rounds['count']} passed run(s))"
        )
    criteria = figures["criteria"]
    if criteria:
        width = max(len("criterion"), *(len(name) for name in criteria))
        lines.append(
            f"{'criterion'.ljust(width)}  {'passed in final verdict':<24}  "
            f"{'failed in round 1':<17}  then passed"
        )
        for name, row in criteria.items():
            recovered = share(row["then_passed"], row["failed_first"])
            lines.append(
                f"{name.ljust(width)}  {share(row['passed'], row['final_verdicts']):<24}  "
                f"{row['failed_first']:<17}  {recovered}"
            )
    tokens = figures["tokens"]
    per = tokens["per_round"]
    if tokens["rounds"]:
        lines.append(
            f"tokens per round (mean over {tokens['rounds']} rounds): "
            f"worker {_number(per['worker_input'], 0)} in / {_number(per['worker_output'], 0)} "
            f"out, critic {_number(per['critic_input'], 0)} in / "
            f"{_number(per['critic_output'], 0)} out, total {_number(per['total'], 0)}"
            + (" (some counts estimated)" if tokens["estimated"] else "")
        )
        lines.append("  from the drafts' and critiques' usage; distillation is not counted")
    timing = figures["seconds_per_round"]
    if timing["count"]:
        lines.append(
            f"time per round: mean {timing['mean']:.2f} s, median {timing['median']:.2f} s, "
            f"p90 {timing['p90']:.2f} s ({timing['count']} rounds timed)"
        )
        lines.append(
            "  between checkpoints: from before a round's first draft to its critique, "
            "pauses between invocations left out"
        )
    by_round = figures["score_by_round"]
    if by_round:
        scores = ", ".join(
            f"{row['round']}: {row['mean_best_score']:.2f} ({row['runs']} run"
            f"{'s' if row['runs'] != 1 else ''})"
            for row in by_round
        )
        lines.append(f"best score by round (mean over the runs that reached it): {scores}")
    return lines


@click.command(cls=SectionedCommand)
@db_option
@option("--scope", section="What", help="Count only the runs of this memory scope.")
@json_option("the statistics")
@option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE.png",
    section="Output",
    help=(
        "Also draw best score by round and a histogram of rounds to pass into this PNG "
        "(needs matplotlib: the plot extra)."
    ),
)
def stats(db: str | None, scope: str | None, as_json: bool, plot: Path | None) -> None:
    """Summarize the finished runs: outcomes, rounds, criteria, tokens and time.

    Outcome counts; rounds to pass (median, p90 by nearest rank); for each criterion, how
    often the final verdict passed it and how often it failed in round 1 and then passed;
    tokens per round (from the drafts' and critiques' usage); time per round (between
    checkpoint timestamps: from the last checkpoint before a round's first draft to the
    first holding its critique).
    """
    from critic_loop.cli.plotting import plot_runs, require_matplotlib
    from critic_loop.cli.run_stats import figures_of, statistics_of
    from critic_loop.cli.stored_threads import all_threads, open_database

    if plot is not None:
        require_matplotlib()
    with open_database(db) as persistence:
        threads = [
            t for t in all_threads(persistence.checkpointer) if not scope or t.scope == scope
        ]
    runs = [figures_of(thread) for thread in threads if thread.finished]
    in_scope = f" in scope {scope!r}" if scope else ""
    figures = statistics_of(runs, unfinished=len(threads) - len(runs), scope=scope)
    if plot is not None:
        if not runs:
            raise UsageProblem(f"nothing to plot: no finished runs{in_scope}")
        title = f"critic-loop: {len(runs)} finished run(s)" + (
            f", scope {scope!r}" if scope else ""
        )
        plot_runs(runs, plot, title)
    if as_json:
        echo_json(figures)
    else:
        click.echo("\n".join(_report_lines(figures)))
        if plot is not None:
            click.echo(f"plot: {plot}")
