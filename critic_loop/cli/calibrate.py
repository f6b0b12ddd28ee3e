"""`critic-loop calibrate` (does the critic agree with humans?) and `lint-rubric`."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from pydantic import ValidationError

from critic_loop.cli.context_options import (
    SectionedCommand,
    context_from_flags,
    context_options,
    json_option,
    option,
)
from critic_loop.cli.history import echo_json, share
from critic_loop.errors import UsageProblem

if TYPE_CHECKING:
    from critic_loop.state.context import Context
    from critic_loop.state.rubric import CriterionBase

ARTIFACT_KEYS = frozenset({"id", "artifact", "labels", "rubric", "family"})


CALIBRATE_HELP = """Measure the critic against human labels.

The critic alone grades each artifact of LABELS.jsonl (checks first, then the judge, as
in round 1 of a run; the judge grades every criterion unless --skip-judge-on-failed-check
is given) and the report compares it with the humans: for each labelled criterion and
overall, the agreement, Cohen's kappa, the false-pass rate (the critic passed what the
humans failed, over what they failed), the false-fail rate and the counts, then every
disagreement with the critic's evidence.

\b
LABELS.jsonl holds one JSON object per line:
  {"rubric": [...criteria...]}       an optional first line: the rubric all share
  {"id": "a1", "artifact": "...", "labels": {"clear": true, "short": false}}
  {"artifact": "...", "labels": {...}, "rubric": [...]}    a rubric of its own
Labels are true when the humans passed the criterion; criteria without a label are
graded but not compared. An artifact's optional "family" names its kind of text.

With --fit, the judge (judge_mode extract_ask) learns its threshold on P(met) from the
labels: the profile is written where CRITIC_LOOP_JUDGE_PROFILE names and later runs with
this critic model use it. The figures on the pairs the judge decided are printed as
graded and as fitted: each label decided by a threshold fitted without its family's labels
when every artifact names its family (leave one family out), else without its artifact's.
"""


class ModelFailed(click.ClickException):
    """A critic model or its server failed (after the client's retries)."""

    exit_code = 3


@dataclass
class Example:
    """One labelled artifact from the file."""

    index: int
    """Its position among the file's artifacts, from 1."""
    line: int
    name: str
    artifact: str
    rubric: list[CriterionBase]
    labels: dict[str, bool]
    family: str | None = None

    def _place(self) -> dict[str, Any]:
        return {"index": self.index, "artifact": self.name, "line": self.line}


@dataclass
class Graded:
    """An example and what the critic decided on each criterion (None: no verdict)."""

    example: Example
    decisions: dict[str, Any] = field(default_factory=dict)
    """Criterion id -> the critic's `CriterionResult`."""
    error: str | None = None
    calls: int = 0


def _rubric(value: Any, where: str) -> list[CriterionBase]:
    from critic_loop.grading import checked_rubric

    if not isinstance(value, list):
        raise UsageProblem(f"{where}: the rubric should be a JSON list of criteria")
    try:
        return checked_rubric(value)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(part) for part in first["loc"])
        raise UsageProblem(
            f"{where}: invalid rubric: {first['msg']}" + (f" (at {place})" if place else "")
        ) from None


def _read_rubric_file(path: Path, flag: str) -> list[CriterionBase]:
    from critic_loop.cli.rubric_flags import read_json

    data = read_json(path, flag, "a JSON file that holds a list of criteria")
    if isinstance(data, Mapping) and "rubric" in data:
        data = data["rubric"]
    return _rubric(data, str(path))


def _labels(value: Any, rubric: Sequence[CriterionBase], where: str) -> dict[str, bool]:
    if not isinstance(value, Mapping) or not value:
        raise UsageProblem(f"{where}: 'labels' should be an object of criterion id -> true/false")
    known = {criterion.id for criterion in rubric}
    for criterion_id, label in value.items():
        if criterion_id not in known:
            raise UsageProblem(f"{where}: label for unknown criterion {criterion_id!r}")
        if not isinstance(label, bool):
            raise UsageProblem(f"{where}: the label of {criterion_id!r} should be true or false")
    return dict(value)


def read_labels(path: Path, shared: list[CriterionBase] | None) -> list[Example]:
    """Read the labels file (see `CALIBRATE_HELP`); `shared` is a `--rubric` rubric."""
    from critic_loop.cli.rubric_flags import read_text
    from critic_loop.state.sizes import check_text_depth

    text = read_text(path, "LABELS.jsonl", "a file of labelled artifacts, one JSON object a line")
    examples: list[Example] = []
    header = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            data = json.loads(check_text_depth(line, where))
        except json.JSONDecodeError as error:
            raise UsageProblem(
                f"{where}: not valid JSON: {error.msg} (column {error.colno})"
            ) from None
        except ValueError as error:  # nested too deeply
            raise UsageProblem(str(error)) from None
        if not isinstance(data, Mapping):
            raise UsageProblem(f"{where}: expected a JSON object")
        if set(data) == {"rubric"}:
            if examples or header:
                raise UsageProblem(f"{where}: the shared rubric's line must come first, once")
            if shared is not None:
                raise UsageProblem(f"{where}: the rubric is given twice (here and by --rubric)")
            shared, header = _rubric(data["rubric"], where), True
            continue
        unknown = sorted(set(data) - ARTIFACT_KEYS)
        if unknown:
            raise UsageProblem(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
        artifact = data.get("artifact")
        if not isinstance(artifact, str):
            raise UsageProblem(f"{where}: 'artifact' should be the artifact's text, a string")
        if "rubric" in data:
            rubric = _rubric(data["rubric"], where)
        elif shared is not None:
            rubric = shared
        else:
            raise UsageProblem(
                f"{where}: no rubric (give it on this line, on a first line of its own, "
                "or with --rubric)"
            )
        name = data.get("id")
        examples.append(
            Example(
                index=len(examples) + 1,
                line=number,
                name=str(name) if name is not None else f"line {number}",
                artifact=artifact,
                rubric=rubric,
                labels=_labels(data.get("labels"), rubric, where),
                family=str(data["family"]) if data.get("family") is not None else None,
            )
        )
    if not examples:
        raise UsageProblem(f"{path} holds no labelled artifact")
    return examples


def _outcome(graded: Graded) -> str:
    if graded.error is not None:
        return "no verdict"
    labels = graded.example.labels
    agreed = sum(graded.decisions[cid].passed == label for cid, label in labels.items())
    return f"agrees on {agreed}/{len(labels)}"


def _grade_all(examples: Sequence[Example], context: Context) -> list[Graded]:
    import httpx
    import openai

    from critic_loop.grading import critique_artifact
    from critic_loop.nodes.loop.check_input import grading_preflight

    rubrics = {
        json.dumps([c.model_dump(mode="json") for c in e.rubric]): e.rubric for e in examples
    }
    for rubric in rubrics.values():
        grading_preflight(context, rubric)
    graded: list[Graded] = []
    with _grading_progress(len(examples)) as progress:
        for example in examples:
            try:
                critique = critique_artifact(example.artifact, example.rubric, context)
            except KeyboardInterrupt:
                break
            except (openai.APIError, httpx.HTTPError, OSError) as error:
                raise ModelFailed(
                    f"the critic failed on {example.name}: {type(error).__name__}: {error}"
                ) from error
            if critique.verdict is None:
                item = Graded(example, error=critique.error or "the critic gave no verdict")
            else:
                item = Graded(example, {r.criterion_id: r for r in critique.verdict.results})
            item.calls = critique.attempts
            graded.append(item)
            progress(example.name, critique.attempts, _outcome(item))
    return graded


def _report(graded: Sequence[Graded], context: Context, total: int | None = None) -> dict[str, Any]:
    from critic_loop.cli.agreement import Agreement

    pairs: dict[str, list[tuple[bool, bool]]] = {}
    disagreements = []
    not_graded = []
    for item in graded:
        if item.error is not None:
            continue
        for criterion_id, human in item.example.labels.items():
            result = item.decisions[criterion_id]
            if result.skipped:
                not_graded.append({"artifact": item.example.name, "criterion": criterion_id})
                continue
            pairs.setdefault(criterion_id, []).append((human, result.passed))
            if human != result.passed:
                disagreements.append(
                    {
                        **item.example._place(),
                        "criterion": criterion_id,
                        "human": "pass" if human else "fail",
                        "critic": "pass" if result.passed else "fail",
                        "source": result.source,
                        "evidence": result.evidence,
                        "hint": result.hint,
                    }
                )
    return {
        "artifacts": len(graded),
        "partial": total is not None and len(graded) < total,
        "of": len(graded) if total is None else total,
        "critic": context.critic_models or [context.critic_model],
        "critic_samples": context.critic_samples,
        "judge_mode": context.judge_mode,
        "calls_per_artifact": sum(item.calls for item in graded) / len(graded) if graded else None,
        "criteria": {
            criterion: Agreement.of(found).as_json() for criterion, found in sorted(pairs.items())
        },
        "overall": Agreement.of(pair for found in pairs.values() for pair in found).as_json(),
        "disagreements": disagreements,
        "not_graded": not_graded,
        "errors": [
            {**item.example._place(), "error": item.error}
            for item in graded
            if item.error is not None
        ],
    }


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _kappa(row: Mapping[str, Any]) -> str:
    return "-" if row["kappa"] is None else f"{row['kappa']:.2f}"


def _false(row: Mapping[str, Any]) -> tuple[str, str]:
    return share(row["false_pass"], row["human_fail"]), share(row["false_fail"], row["human_pass"])


def _report_lines(figures: Mapping[str, Any]) -> list[str]:
    critic = ", ".join(figures["critic"])
    samples = f" x{figures['critic_samples']}" if figures["critic_samples"] > 1 else ""
    lines = [f"critic {critic}{samples} on {figures['artifacts']} labelled artifact(s)"]
    if figures.get("partial"):
        lines[0] += f" (stopped early: partial figures, {figures['artifacts']} of {figures['of']})"
    rows = [*figures["criteria"].items(), ("overall", figures["overall"])]
    width = max(len("criterion"), *(len(name) for name, _ in rows))
    lines.append(
        f"{'criterion'.ljust(width)}  {'n':>4}  {'agree':>5}  {'kappa':>6}  "
        f"{'false pass':<13}  {'false fail':<13}  human pass/fail  critic pass/fail"
    )
    for name, row in rows:
        false_pass, false_fail = _false(row)
        humans = f"{row['human_pass']}/{row['human_fail']}"
        lines.append(
            f"{name.ljust(width)}  {row['n']:>4}  {_percent(row['agreement']):>5}  "
            f"{_kappa(row):>6}  {false_pass:<13}  {false_fail:<13}  {humans:<15}  "
            f"{row['critic_pass']}/{row['critic_fail']}"
        )
    if figures["calls_per_artifact"] is not None:
        lines.append(f"critic calls per artifact: {figures['calls_per_artifact']:.1f}")
    if figures["not_graded"]:
        lines.append(f"not graded by the critic (skipped): {len(figures['not_graded'])}")
    for error in figures["errors"]:
        lines.append(f"no verdict on {error['artifact']}: {error['error']}")
    disagreements = figures["disagreements"]
    lines.append("")
    lines.append(f"disagreements: {len(disagreements)}")
    for item in disagreements:
        evidence = next((x.strip() for x in item["evidence"].splitlines() if x.strip()), "-")
        lines.append(
            f"  #{item['index']} {item['artifact']} [{item['criterion']}]: human {item['human']}, "
            f"critic {item['critic']} ({item['source']}): {evidence}"
        )
    return lines


@click.command(cls=SectionedCommand, help=CALIBRATE_HELP)
@click.argument("labels", type=click.Path(path_type=Path), metavar="LABELS.jsonl")
@option(
    "--rubric",
    "rubric_file",
    type=click.Path(path_type=Path),
    metavar="FILE",
    section="Input",
    help='The rubric every artifact shares: a JSON list of criteria, or {"rubric": [...]}.',
)
@option("--model", section="Input", help="One provider:model for the critic (as --critic-model).")
@option(
    "--fit",
    is_flag=True,
    section="Output",
    help="Fit the judge's threshold to the labels and store it as CRITIC_LOOP_JUDGE_PROFILE.",
)
@json_option("the report")
@context_options
def calibrate(**parameters: Any) -> None:
    """Measure the critic against human labels (see CALIBRATE_HELP)."""
    from critic_loop.nodes.models.discovery import with_available_models

    rubric_file: Path | None = parameters["rubric_file"]
    target = _fit_target(parameters) if parameters["fit"] else None
    shared = _read_rubric_file(rubric_file, "--rubric") if rubric_file is not None else None
    examples = read_labels(parameters["labels"], shared)
    settings: dict[str, Any] = {
        "skip_judge_on_failed_check": bool(parameters["skip_judge_on_failed_check"])
    }
    if target is not None:
        settings["judge_mode"] = "extract_ask"
    # the user's own settings are checked (building the Context) before asking any server
    context = with_available_models(context_from_flags({**parameters, **settings}))
    graded = _grade_all(examples, context)
    figures = _report(graded, context, len(examples))
    if target is not None:
        figures["fit"] = _fit(graded, context.critic_model, target)
    if parameters["as_json"]:
        echo_json(figures)
    else:
        click.echo("\n".join([*_report_lines(figures), *_fit_lines(figures.get("fit"))]))
    if figures["partial"]:
        click.echo(
            f"critic-loop: stopped by Ctrl-C after {figures['artifacts']} of "
            f"{figures['of']} artifact(s); the figures above are partial",
            err=True,
        )
        raise click.exceptions.Exit(130)


def _fit_target(parameters: Mapping[str, Any]) -> Path:
    from critic_loop.state.operator_settings import operator_settings

    if parameters.get("judge_mode") not in (None, "extract_ask"):
        raise UsageProblem("--fit fits the extract_ask judge: leave --judge-mode out")
    path = operator_settings().judge_profile
    if not path:
        raise UsageProblem("--fit stores the profile where CRITIC_LOOP_JUDGE_PROFILE names: set it")
    return Path(path)


def _fit(graded: Sequence[Graded], model: str, path: Path) -> dict[str, Any]:
    from critic_loop.judge_fit import Scored, agreement, fit_profile
    from critic_loop.nodes.verifiers.grounding import quotations
    from critic_loop.nodes.verifiers.judge_profile import save_profile

    by_family = all(item.example.family for item in graded)  # then leave one family out
    results = [
        (
            (item.example.family if by_family else None) or item.example.name,
            label,
            item.decisions[criterion_id],
        )
        for item in graded
        if item.error is None
        for criterion_id, label in item.example.labels.items()
        if item.decisions[criterion_id].source == "judge"
        and not item.decisions[criterion_id].skipped
    ]
    scored = [
        Scored(
            r.p_met if r.p_met is not None else (1.0 if r.passed else None),
            label,
            name,
            quoted=bool(quotations(r.evidence)),
        )
        for name, label, r in results
    ]
    if not scored:
        raise UsageProblem(
            "--fit: the judge decided no labelled criterion, so there is nothing to fit"
        )
    folds = len({group for group, _, _ in results}) if by_family else 5
    profile, table = fit_profile(scored, model, folds)
    save_profile(profile, path)
    graded_table = agreement(scored, [r.passed for _, _, r in results])
    return {
        "path": str(path),
        "threshold": profile.threshold,
        "quote_weight": profile.quote_weight,
        "labels": profile.labels,
        "as_graded": graded_table.as_json(),
        "cross_validated": table.as_json(),
        "held_out": "family" if by_family else "artifact",
    }


def _fit_lines(fitted: Mapping[str, Any] | None) -> list[str]:
    if fitted is None:
        return []
    lines = ["", f"fit on the {fitted['labels']} labelled pairs the judge decided:"]
    for name, row in (
        ("as graded", fitted["as_graded"]),
        (f"fitted, each {fitted['held_out']} left out", fitted["cross_validated"]),
    ):
        false_pass, false_fail = _false(row)
        lines.append(
            f"  {name:25s} agree {_percent(row['agreement'])}  kappa {_kappa(row)}  "
            f"false pass {false_pass}  false fail {false_fail}"
        )
    lines.append(
        f"stored {fitted['path']}: threshold {fitted['threshold']:.3f}, "
        f"a quotation worth {fitted['quote_weight']:.2f}"
    )
    return lines


@contextlib.contextmanager
def _grading_progress(total: int) -> Iterator[Callable[[str, int, str], None]]:
    started = time.monotonic()
    done = calls = 0
    with contextlib.ExitStack() as stack:
        bar: Any = None
        if sys.stderr.isatty():
            bar = stack.enter_context(
                click.progressbar(
                    length=total,
                    label="grading",
                    file=sys.stderr,
                    show_eta=True,
                    show_pos=True,
                    item_show_func=lambda item: item,
                )
            )

        def graded(name: str, spent: int, outcome: str) -> None:
            nonlocal done, calls
            done += 1
            calls += spent
            if bar is not None:
                bar.update(1, f"{calls} call(s); {name}: {outcome}")
                return
            elapsed = time.monotonic() - started
            left = elapsed / done * (total - done)
            click.echo(
                f"graded {done}/{total} {name}: {outcome}; {spent} call(s), "
                f"{calls} in all; {elapsed:.0f} s so far, about {left:.0f} s left",
                err=True,
            )

        yield graded


@click.command("lint-rubric")
@click.argument("rubric", type=click.Path(path_type=Path), metavar="RUBRIC")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def lint_rubric_command(rubric: Path, as_json: bool) -> None:
    """Find judged criteria that code could decide, and criteria too vague to grade.

    RUBRIC is a JSON file: a list of criteria, {"rubric": [...]}, or a run's input. Each
    finding proposes a deterministic check where there is one (as rubric JSON and as a
    --check flag of run). Exit status 1 when something was found.
    """
    from critic_loop.nodes.verifiers.rubric_lint import check_flag, lint_rubric

    criteria = _read_rubric_file(rubric, "RUBRIC")
    findings = lint_rubric(criteria)
    if as_json:
        click.echo(json.dumps([finding.as_json() for finding in findings], indent=2))
    else:
        judged = sum(not criterion.deterministic for criterion in criteria)
        click.echo(f"{rubric}: {len(criteria)} criteria, {judged} judged by the critic model")
        for finding in findings:
            label = "could be a check" if finding.problem == "checkable" else "vague"
            click.echo(f"  {finding.criterion_id}: {label}: {finding.message}")
            if finding.proposal is not None:
                click.echo(f"    proposal: {json.dumps(finding.proposal)}")
                click.echo(f"    as a flag: {check_flag(finding.proposal)}")
        if not findings:
            click.echo("  nothing to change")
    if findings:
        raise click.exceptions.Exit(1)
