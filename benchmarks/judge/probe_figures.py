"""Figures of every judge configuration the probe's answers allow, without the model.

A configuration decides each labelled pair from the cached answers (`probe`): a yes/no
variant's P(met) against a threshold (0.5, or fitted on the fit set), optionally with
the rubric linter's checks deciding what code can (`+lint`), a grounded quote required
for a pass (`+quote`), or the quote asked about again (`quote_question`). Figures are
reported on the held-out set (thresholds and examples chosen on the fit set only) and,
for the fitted configurations, cross-validated on the fit set (5 folds by artifact).

    python -m benchmarks.judge.probe_figures benchmarks/judge/results/probe-local-0.5b.json
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.judge.probe import SETS, VARIANTS, YES_NO, Item, items
from critic_loop.cli.agreement import Agreement
from critic_loop.judge_fit import Scored, agreement, cross_validated, fit_profile
from critic_loop.nodes.loop.feedback import redact_criteria
from critic_loop.nodes.verifiers.checks import run_check
from critic_loop.nodes.verifiers.judge_profile import JudgeProfile, KindSettings
from critic_loop.nodes.verifiers.rubric_lint import code_check_for, criterion_kind
from critic_loop.state.rubric import Criterion

Score = Callable[[Item], float | None]
"""A configuration's P(met) for a pair (None: no answer, not met)."""


@dataclass
class Answers:
    """The probe's cache: rows per (variant, pair) and the requests they made."""

    rows: dict[str, dict[str, Any]]
    asked: dict[str, dict[str, Any]]

    def row(self, variant: str, item: Item) -> dict[str, Any] | None:
        """Return a variant's row for a pair, if it was asked."""
        return self.rows.get(f"{variant}:{item.key}")

    def cost(self, asked: Sequence[tuple[Item, Sequence[str]]]) -> tuple[int, int, float]:
        """Return (calls, tokens, seconds) of the distinct requests made for (pair, variants).

        A request made for several pairs (the same question of a content-free artifact, for
        one criterion) counts once: a run asks it once.
        """
        keys = {
            key
            for item, variants in asked
            for variant in dict.fromkeys(variants)
            for key in (self.row(variant, item) or {}).get("asked", [])
        }
        calls = [self.asked[key] for key in keys if key in self.asked]
        tokens = sum((c["prompt_tokens"] or 0) + (c["completion_tokens"] or 0) for c in calls)
        return len(calls), tokens, sum(c["seconds"] for c in calls)


def lint_decision(item: Item) -> bool | None:
    """Return the linter's exact decision on a pair, or None when code cannot decide it."""
    check = code_check_for(Criterion(id=item.pair.id, text=item.pair.text))
    return None if check is None else run_check(check, item.case.artifact).passed


@dataclass(frozen=True)
class Config:
    """A way to decide every pair from the answers."""

    name: str
    score: Score
    variants: tuple[str, ...]
    """The probe variants whose requests it makes (for its cost)."""
    fitted: bool = False
    per_kind: bool = False
    lint: bool = False
    quote: bool = False
    uses: Callable[[Item], tuple[str, ...]] | None = None
    """The variants asked about a pair, when not all of `variants` always are."""


def yes_no_score(answers: Answers, variant: str, item: Item) -> float | None:
    """Return a yes/no variant's P(met)."""
    row = answers.row(variant, item)
    return None if row is None else row.get("p_met")


def contrast_score(answers: Answers, item: Item) -> float | None:
    """Return the mean of P(yes | true?) and P(no | false?): a bias to one word cancels."""
    true, false = yes_no_score(answers, "statement", item), yes_no_score(answers, "negated", item)
    return None if true is None or false is None else (true + 1 - false) / 2


def calibrated_score(answers: Answers, item: Item) -> float | None:
    """Return P(met) with the criterion's own pull removed.

    That is logit P(yes) minus logit P(yes) of the same question about a content-free
    artifact, as a probability again.
    """
    asked, null = yes_no_score(answers, "question", item), yes_no_score(answers, "null", item)
    if asked is None or null is None:
        return None
    clipped = [min(max(p, 1e-6), 1 - 1e-6) for p in (asked, null)]
    shift = math.log(clipped[0] / (1 - clipped[0])) - math.log(clipped[1] / (1 - clipped[1]))
    return 1 / (1 + math.exp(-shift))


def extract_or_score(answers: Answers, fallback: Score, item: Item) -> float | None:
    """Return 1 for a grounded quote, 0 for NONE, else the fallback's P(met).

    The fallback is a second look where the quote proved nothing (words not in the
    artifact, or all of it).
    """
    row = answers.row("extract", item)
    if row is None:
        return None
    if row.get("problem") is None:
        return 1.0
    return 0.0 if row["problem"] == "nothing quoted" else fallback(item)


def second_look(answers: Answers, item: Item) -> tuple[str, ...]:
    """Return the variants `extract|...` asks: the yes/no pair only where the quote failed."""
    row = answers.row("extract", item) or {}
    looked = row.get("problem") not in (None, "nothing quoted")
    return ("extract", "question", "null") if looked else ("extract",)


def mean_score(answers: Answers, variants: Sequence[str], item: Item) -> float | None:
    """Return the mean P(met) of several variants (an ensemble of wordings)."""
    scores = [yes_no_score(answers, v, item) for v in variants]
    return None if any(s is None for s in scores) else sum(s or 0 for s in scores) / len(scores)


def quoted(answers: Answers, item: Item) -> bool:
    """Say whether the extracting judge quoted words of the artifact for the pair."""
    row = answers.row("extract", item)
    return row is not None and row.get("problem") is None


def quote_question_score(answers: Answers, item: Item) -> float | None:
    """Return P(met) asked of the extracted quote alone (0 when nothing was quoted)."""
    row = answers.row("quote_question", item)
    if row is None:
        return None
    return row.get("p_met", 0.0) if row.get("problem") is None else 0.0


def extract_score(answers: Answers, item: Item) -> float | None:
    """Return 1 for a grounded quote, 0 otherwise: the extracting judge's first answer."""
    row = answers.row("extract", item)
    return None if row is None else float(row.get("problem") is None)


def not_none_score(answers: Answers, item: Item) -> float | None:
    """Return 1 - P(NONE) on the extracting judge's first token."""
    row = answers.row("extract", item)
    return None if row is None else 1.0 - row["p_none"]


def configs(answers: Answers) -> list[Config]:
    """Return every configuration the answers allow."""
    yes_no = [
        Config(v, partial(yes_no_score, answers, v), (v,))
        for v in YES_NO
        if v not in ("negated", "null")
    ]
    scored = [
        *yes_no,
        Config("contrast", partial(contrast_score, answers), ("statement", "negated")),
        Config("calibrated", partial(calibrated_score, answers), ("question", "null")),
        Config(
            "mean4",
            partial(mean_score, answers, ["question", "statement", "question_first", "bare"]),
            ("question", "statement", "question_first", "bare"),
        ),
        Config("extract_not_none", partial(not_none_score, answers), ("extract",)),
        Config("quote_question", partial(quote_question_score, answers), ("quote_question",)),
        Config(
            "extract|calibrated",
            partial(extract_or_score, answers, partial(calibrated_score, answers)),
            ("extract", "question", "null"),
            uses=partial(second_look, answers),
        ),
    ]
    found = [Config("extract", partial(extract_score, answers), ("extract",))]
    found.append(Config("extract+lint", found[0].score, ("extract",), lint=True))
    for base in scored:
        for fitted, per_kind in ((False, False), (True, False), (True, True)):
            for lint in (False, True):
                for quote in (False, True):
                    suffix = ("@fit" + ("/kind" if per_kind else "")) if fitted else "@0.5"
                    suffix += "+lint" if lint else ""
                    suffix += "+quote" if quote else ""
                    variants = (*base.variants, "extract") if quote else base.variants
                    found.append(
                        Config(
                            base.name + suffix,
                            base.score,
                            variants,
                            fitted=fitted,
                            per_kind=per_kind,
                            lint=lint,
                            quote=quote,
                            uses=base.uses,
                        )
                    )
    return found


def scored_items(config: Config, answers: Answers, chosen: Sequence[Item]) -> list[Scored]:
    """Return the pairs as (P(met), label, kind, artifact), a grounded quote required if asked."""
    found = []
    for item in chosen:
        p = config.score(item)
        if config.quote and p is not None and not quoted(answers, item):
            p = 0.0
        found.append(Scored(p, item.pair.label, criterion_kind(item.pair.text), item.case.id))
    return found


def decide(
    config: Config, answers: Answers, chosen: Sequence[Item]
) -> tuple[list[bool], list[tuple[str, ...]]]:
    """Decide the chosen pairs: linted ones by code, the rest by the judge's P(met).

    Also return the variants asked about each pair: none where code decided; the quote
    (`+quote`) only where the judge's P(met) would pass it.
    """
    fit_set = [i for i in items(["fit"]) if answered(config, answers, i)]
    fit_for = partial(fit_profile, model="probe") if config.fitted else None
    judged = scored_items(config, answers, chosen)
    if fit_for is None:
        profile = JudgeProfile(model="probe", default=KindSettings())
    else:
        training = scored_items(config, answers, [i for i in fit_set if not _linted(config, i)])
        profile = fit_for(training)
        if not config.per_kind:
            profile.kinds = {}
    decided, asked = [], []
    for item, scored in zip(chosen, judged, strict=True):
        linted = lint_decision(item) if config.lint else None
        threshold = profile.settings_for(scored.kind).threshold
        decided.append(
            linted if linted is not None else scored.p_met is not None and scored.p_met >= threshold
        )
        uses = config.uses(item) if config.uses else config.variants
        if config.quote:
            base = config.score(item)
            uses = (*uses, "extract") if base is not None and base >= threshold else uses
        asked.append(() if linted is not None else uses)
    return decided, asked


def answered(config: Config, answers: Answers, item: Item) -> bool:
    """Say whether every variant the configuration reads was asked about the pair."""
    return all(answers.row(variant, item) is not None for variant in config.variants)


def _linted(config: Config, item: Item) -> bool:
    return config.lint and lint_decision(item) is not None


def cv_decide(config: Config, answers: Answers, chosen: Sequence[Item]) -> list[bool]:
    """Decide the fit set's pairs with thresholds fitted on the other folds (5, by artifact)."""
    judged = scored_items(config, answers, chosen)
    linted = [lint_decision(item) if config.lint else None for item in chosen]
    open_pairs = [scored for scored, code in zip(judged, linted, strict=True) if code is None]

    def fit(training: Sequence[Scored]) -> JudgeProfile:
        profile = fit_profile(training, "probe")
        if not config.per_kind:
            profile.kinds = {}
        return profile

    by_judge = iter(cross_validated(open_pairs, fit))
    return [code if code is not None else next(by_judge) for code in linted]


def line(name: str, table: Agreement, coverage: str, cost: str) -> str:
    """Lay out one configuration's figures."""
    kappa = "-" if table.kappa is None else f"{table.kappa:.2f}"
    fp = f"{table.false_pass}/{table.human_fail} {100 * (table.false_pass_rate or 0):.0f}%"
    ff = f"{table.false_fail}/{table.human_pass} {100 * (table.false_fail_rate or 0):.0f}%"
    agree = f"{100 * (table.accuracy or 0):.0f}%"
    return f"{name:34s} {agree:>5} {kappa:>6} {fp:>11} {ff:>11} {coverage:>9} {cost}"


def figures(answers: Answers, set_name: str, cv: bool) -> list[str]:
    """Return the table of every configuration, over the pairs its answers cover."""
    every = list(items([set_name]))
    header = (
        f"{'configuration':34s} {'agree':>5} {'kappa':>6} {'false pass':>11} {'false fail':>11}"
    )
    lines = [
        f"{set_name}: {len(every)} pairs, {len(SETS[set_name])} artifacts",
        header + " answered  calls/grade tokens/grade s/grade",
    ]
    for config in configs(answers):
        chosen = [item for item in every if answered(config, answers, item)]
        if not chosen or (cv and not config.fitted):
            continue
        decided, asked = decide(config, answers, chosen)
        if cv:
            decided = cv_decide(config, answers, chosen)
        table = agreement(scored_items(config, answers, chosen), decided)
        scores = [config.score(item) for item in chosen]
        coverage = f"{sum(s is not None for s in scores)}/{len(every)}"
        artifacts = len({item.case.id for item in chosen})
        calls, tokens, seconds = answers.cost(list(zip(chosen, asked, strict=True)))
        cost = f"{calls / artifacts:11.1f} {tokens / artifacts:12.0f} {seconds / artifacts:7.1f}"
        lines.append(line(config.name, table, coverage, cost))
    return lines


def auc(scored: Sequence[Scored]) -> float | None:
    """Return the chance that a met pair scores above an unmet one (ties count half)."""
    met = [s.p_met or 0.0 for s in scored if s.label]
    unmet = [s.p_met or 0.0 for s in scored if not s.label]
    if not met or not unmet:
        return None
    wins = sum((a > b) + 0.5 * (a == b) for a in met for b in unmet)
    return wins / (len(met) * len(unmet))


def auc_lines(answers: Answers, set_name: str) -> list[str]:
    """Return each score's AUC on a set: how well it ranks, whatever the threshold."""
    lines = [f"{set_name}: how well each P(met) ranks met above not met (AUC; 0.5 is chance)"]
    for config in configs(answers):
        if "@0.5" not in config.name or "+" in config.name:
            continue
        chosen = [i for i in items([set_name]) if answered(config, answers, i)]
        found = auc(scored_items(config, answers, chosen)) if chosen else None
        if found is not None:
            name = config.name.removesuffix("@0.5")
            lines.append(f"  {name:24s} {found:.2f}  ({len(chosen)} pairs)")
    return lines


def hint_lines(answers: Answers) -> list[str]:
    """Return what the hints for pairs labelled not met cost, and what reached the worker.

    A hint passes through the worker's feedback filter (`redact_criteria`): words that
    repeat the criterion are cut out, so a hint that only restates it tells the worker
    nothing.
    """
    hints = [
        (item, row)
        for item in items(["held_out"])
        if (row := answers.row("hint", item)) is not None and row["asked"]
    ]
    if not hints:
        return []
    lines = [f"hints for the {len(hints)} held-out pairs labelled not met:"]
    restated = 0
    for item, row in hints:
        criterion = Criterion(id=item.pair.id, text=item.pair.text)
        shown = redact_criteria(row["hint"], [criterion])
        restated += shown != row["hint"]
        lines.append(f"  {item.case.id}/{item.pair.id}: {shown}")
    _, tokens, seconds = answers.cost([(item, ("hint",)) for item, _ in hints])
    lines.append(
        f"  1 call each ({tokens / len(hints):.0f} tokens, {seconds / len(hints):.1f} s); "
        f"{restated} of {len(hints)} repeated the criterion (cut out before the worker sees it)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the held-out figures, then the fit set's cross-validated ones."""
    parse = argparse.ArgumentParser(prog="python -m benchmarks.judge.probe_figures")
    parse.add_argument("answers", type=Path)
    args = parse.parse_args(argv)
    data = json.loads(args.answers.read_text())
    answers = Answers(data["rows"], data["answers"])
    print("\n".join(figures(answers, "held_out", cv=False)))
    print()
    print("\n".join(figures(answers, "fit", cv=True)))
    for set_name in ("held_out", "fit"):
        print()
        print("\n".join(auc_lines(answers, set_name)))
    print()
    print("\n".join(hint_lines(answers)))
    assert set(VARIANTS) >= {v for row in answers.rows for v in [row.split(":")[0]]}
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
