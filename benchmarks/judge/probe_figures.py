"""Figures of the judge configurations the probe's cached answers allow, without the model.

Held-out figures use thresholds fitted on the fit set only; the fit set's are 5-fold
cross-validated by artifact. `--profile FILE` writes `extract|calibrated+lint`'s profile.

    python -m benchmarks.judge.probe_figures benchmarks/judge/results/probe-local-0.5b.json
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import product
from pathlib import Path
from typing import Any

from benchmarks.harness.tables import share
from benchmarks.judge.families import SETS, Item, items
from critic_loop.judge_fit import Scored, agreement, cross_validated, fit_profile, fit_threshold
from critic_loop.nodes.verifiers.checks import run_check
from critic_loop.nodes.verifiers.judge_profile import DEFAULT_THRESHOLD, save_profile
from critic_loop.nodes.verifiers.rubric_lint import code_check_for
from critic_loop.nodes.verifiers.yes_no import calibrated
from critic_loop.state.rubric import Criterion

Score = Callable[[Item], float | None]  # a pair's P(met) (None: no answer, not met)
ALL = ("extract", "question", "null")


@dataclass
class Answers:
    """The probe's cache: rows per (variant, pair) and the requests they made."""

    rows: dict[str, dict[str, Any]]
    asked: dict[str, dict[str, Any]]

    def row(self, variant: str, item: Item) -> dict[str, Any] | None:
        """Return a variant's row for a pair, if it was asked."""
        return self.rows.get(f"{variant}:{item.key}")

    def p_met(self, variant: str, item: Item) -> float | None:
        """Return a yes/no variant's P(met)."""
        return (self.row(variant, item) or {}).get("p_met")

    def cost(self, asked: Sequence[tuple[Item, Sequence[str]]]) -> tuple[int, int]:
        """Return (calls, tokens) of the distinct requests made for (pair, variants)."""
        keys = {
            key
            for item, variants in asked
            for variant in dict.fromkeys(variants)
            for key in (self.row(variant, item) or {}).get("asked", [])
        }
        calls = [self.asked[key] for key in keys if key in self.asked]
        tokens = sum((c["prompt_tokens"] or 0) + (c["completion_tokens"] or 0) for c in calls)
        return len(calls), tokens


def lint_decision(item: Item) -> bool | None:
    """Return the linter's exact decision on a pair, or None when code cannot decide it."""
    check = code_check_for(Criterion(id=item.pair.id, text=item.pair.text))
    return None if check is None else run_check(check, item.case.artifact).passed


@dataclass(frozen=True)
class Config:
    """A way to decide every pair from the answers."""

    name: str
    score: Score
    variants: tuple[str, ...]  # the probe variants it reads (all must be answered)
    fitted: bool = False
    lint: bool = False
    uses: Callable[[Item], tuple[str, ...]] | None = None  # variants asked, if not all


def calibrated_score(answers: Answers, item: Item) -> float | None:
    """Return P(met) with the question's own pull removed (`yes_no.calibrated`)."""
    return calibrated(answers.p_met("question", item), answers.p_met("null", item))


def extract_score(answers: Answers, item: Item) -> float | None:
    """Return 1 for a grounded quote, 0 otherwise: the extracting judge's first answer."""
    row = answers.row("extract", item)
    return None if row is None else float(row.get("problem") is None)


def extract_or_calibrated(answers: Answers, item: Item) -> float | None:
    """Return 1 for a grounded quote, 0 for NONE, else the calibrated yes/no P(met)."""
    looked = second_look(answers, item) == ALL
    return calibrated_score(answers, item) if looked else extract_score(answers, item)


def second_look(answers: Answers, item: Item) -> tuple[str, ...]:
    """Return the variants `extract|calibrated` asks: yes/no only where the quote failed."""
    row = answers.row("extract", item) or {}
    looked = row.get("problem") not in (None, "nothing quoted")
    return ALL if looked else ("extract",)


def configs(answers: Answers) -> list[Config]:
    """Return every configuration: each score at 0.5 and fitted, each with and without lint."""
    extract = partial(extract_score, answers)
    found = [
        Config("extract", extract, ("extract",)),
        Config("extract+lint", extract, ("extract",), lint=True),
    ]
    either = partial(extract_or_calibrated, answers)
    scores = [
        ("question", lambda item: answers.p_met("question", item), ("question",), None),
        ("calibrated", partial(calibrated_score, answers), ("question", "null"), None),
        ("extract|calibrated", either, ALL, partial(second_look, answers)),
    ]
    for (name, score, variants, uses), fitted, lint in product(scores, *[(False, True)] * 2):
        label = name + ("@fit" if fitted else "@0.5") + ("+lint" if lint else "")
        found.append(Config(label, score, variants, fitted, lint, uses))
    return found


def answered(config: Config, answers: Answers, item: Item) -> bool:
    """Say whether every variant the configuration reads was asked about the pair."""
    return all(answers.row(variant, item) is not None for variant in config.variants)


def scored_items(config: Config, chosen: Sequence[Item]) -> list[Scored]:
    """Return the pairs the judge decides as (P(met), label, artifact)."""
    return [Scored(config.score(item), item.pair.label, item.case.id) for item in chosen]


def judged(config: Config, chosen: Sequence[Item]) -> list[Item]:
    """Return the pairs the judge decides (the linter's are code's)."""
    return [item for item in chosen if not (config.lint and lint_decision(item) is not None)]


def threshold_of(config: Config, answers: Answers) -> float:
    """Return the configuration's threshold: 0.5, or fitted on the fit set's judged pairs."""
    return fit_threshold(fit_pairs(config, answers)) if config.fitted else DEFAULT_THRESHOLD


def fit_pairs(config: Config, answers: Answers) -> list[Scored]:
    """Return the fit set's answered pairs the judge decides."""
    fit_set = [i for i in items(["fit"]) if answered(config, answers, i)]
    return scored_items(config, judged(config, fit_set))


def decide(config: Config, chosen: Sequence[Item], judge: Sequence[bool]) -> list[bool]:
    """Merge the linter's decisions with the judge's (`judge`: one per judged pair)."""
    decisions = iter(judge)
    linted = [lint_decision(item) if config.lint else None for item in chosen]
    return [code if code is not None else next(decisions) for code in linted]


def figures(answers: Answers, set_name: str, cv: bool) -> list[str]:
    """Return the table of every configuration, over the pairs its answers cover."""
    every = list(items([set_name]))
    lines = [
        f"{set_name}: {len(every)} pairs, {len(SETS[set_name])} artifacts",
        f"{'configuration':26s} {'agree':>5} {'kappa':>6} {'false pass':>11} "
        f"{'false fail':>11} answered  calls/grade tokens/grade",
    ]
    for config in configs(answers):
        chosen = [item for item in every if answered(config, answers, item)]
        if not chosen or (cv and not config.fitted):
            continue
        open_items = judged(config, chosen)
        open_pairs = scored_items(config, open_items)
        if cv:
            judge = cross_validated(open_pairs, fit_threshold)
        else:
            threshold = threshold_of(config, answers)
            judge = [s.p_met is not None and s.p_met >= threshold for s in open_pairs]
        table = agreement(scored_items(config, chosen), decide(config, chosen, judge))
        asked = [config.uses(i) if config.uses else config.variants for i in open_items]
        calls, tokens = answers.cost(list(zip(open_items, asked, strict=True)))
        artifacts = len({item.case.id for item in chosen})
        kappa = "-" if table.kappa is None else f"{table.kappa:.2f}"
        fp = share(table.false_pass, table.human_fail)
        ff = share(table.false_fail, table.human_pass)
        lines.append(
            f"{config.name:26s} {100 * (table.accuracy or 0):4.0f}% {kappa:>6} {fp:>11} "
            f"{ff:>11} {f'{len(chosen)}/{len(every)}':>9} "
            f"{calls / artifacts:11.1f} {tokens / artifacts:12.0f}"
        )
    return lines


def shipped_profile(answers: Answers, model: str, path: Path) -> str:
    """Fit `extract|calibrated+lint` on the fit set's judged pairs; save it; describe it."""
    config = next(c for c in configs(answers) if c.name == "extract|calibrated@fit+lint")
    profile, table = fit_profile(fit_pairs(config, answers), model)
    save_profile(profile, path)
    return (
        f"{path}: threshold {profile.threshold:.3f} on {profile.labels} judged fit pairs; "
        f"cross-validated kappa {table.kappa}, false pass {table.false_pass}/"
        f"{table.human_fail}, false fail {table.false_fail}/{table.human_pass}"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the held-out figures, then the fit set's cross-validated ones."""
    parse = argparse.ArgumentParser(prog="python -m benchmarks.judge.probe_figures")
    parse.add_argument("answers", type=Path)
    parse.add_argument("--profile", type=Path, help="write the shipped judge profile here")
    parse.add_argument("--model", default="openai:qwen2.5-coder-0.5b-instruct")
    args = parse.parse_args(argv)
    data = json.loads(args.answers.read_text())
    answers = Answers(data["rows"], data["answers"])
    held_out, fit = figures(answers, "held_out", cv=False), figures(answers, "fit", cv=True)
    print("\n".join([*held_out, "", *fit]))
    if args.profile is not None:
        print("\n" + shipped_profile(answers, args.model, args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
