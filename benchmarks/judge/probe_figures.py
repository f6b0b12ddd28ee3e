"""The judge's figures, leave one family out, from the probe's cached answers alone.

Each family of the labelled set is measured by a judge fitted on the other families only:
its yes/no look is asked with the family's own worked examples left out (the probe's `look`
variant), and its threshold is fitted on the other families' pairs. What the linter decides
is code's. `--profile FILE` writes the profile fitted on every family (what ships).

    python -m benchmarks.judge.probe_figures benchmarks/judge/results/probe-local-0.5b-families.json
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.harness.tables import share
from benchmarks.judge.families import Item, folds, items
from critic_loop.cli.agreement import Agreement
from critic_loop.judge_fit import FIGURES, Bar, Scored, fit_bar
from critic_loop.nodes.verifiers.checks import run_check
from critic_loop.nodes.verifiers.judge import extracted
from critic_loop.nodes.verifiers.judge_profile import JudgeProfile, save_profile
from critic_loop.nodes.verifiers.rubric_lint import code_check_for
from critic_loop.nodes.verifiers.ruled_out import ruled_out
from critic_loop.state.rubric import Criterion


@dataclass
class Answers:
    """The probe's cache: rows per (variant, pair) and the requests they made."""

    rows: dict[str, dict[str, Any]]
    asked: dict[str, dict[str, Any]]

    def row(self, variant: str, item: Item) -> dict[str, Any] | None:
        """Return a variant's row for a pair, if it was asked."""
        return self.rows.get(f"{variant}:{item.key}")

    def quoted(self, item: Item) -> bool:
        """Say whether the extracting judge's words pass the pair, as the product reads them."""
        row = self.row("extract", item)
        criterion = Criterion(id=item.pair.id, text=item.pair.text)
        return (
            row is not None
            and extracted(row["text"], criterion, item.case.artifact)[0][0][0].passed
        )

    def look(self, item: Item, variant: str = "look") -> float | None:
        """Return the yes/no look's P(met)."""
        return (self.row(variant, item) or {}).get("p_met")

    def cost(self, asked: Sequence[tuple[Item, Sequence[str]]]) -> tuple[int, int]:
        """Return (calls, tokens) of the requests made for (pair, variants)."""
        calls = [
            self.asked[key]
            for item, variants in asked
            for variant in variants
            for key in (self.row(variant, item) or {}).get("asked", [])
            if key in self.asked
        ]
        tokens = sum((c["prompt_tokens"] or 0) + (c["completion_tokens"] or 0) for c in calls)
        return len(calls), tokens


def lint_decision(item: Item) -> bool | None:
    """Return code's decision on a pair (the linter's check, or a rule), or None: a judge's."""
    criterion = Criterion(id=item.pair.id, text=item.pair.text)
    check = code_check_for(criterion)
    if check is not None:
        return run_check(check, item.case.artifact).passed
    return False if ruled_out(criterion, item.case.artifact, small_judge=True) else None


@dataclass(frozen=True)
class Config:
    """A way to decide a pair the judge decides: a quote, a look at a bar, or both."""

    name: str
    needs: tuple[str, ...]  # the probe variants it reads
    ending: bool = False  # decided as on a draft a run would end on (`JudgeBar.ends_on`)

    def asked(self, answers: Answers, item: Item, bar: Bar | None = None) -> tuple[str, ...]:
        """Return the variants asked about the pair (the words only near the bar)."""
        if lint_decision(item) is not None:
            return ()
        if self.needs != ("extract", "look") or bar is None:
            return self.needs
        met = answers.look(item)
        near = met is not None and bar.threshold - bar.weight <= met < bar.threshold + bar.weight
        return self.needs if near else ("look",)

    def scored(self, answers: Answers, item: Item) -> Scored:
        """Return what the judge said of the pair, as the bar reads it."""
        quoted = "extract" in self.needs and answers.quoted(item)
        if self.needs == ("extract",):
            return Scored(1.0 if quoted else 0.0, item.pair.label, item.case.id)
        return Scored(answers.look(item), item.pair.label, item.case.id, quoted=quoted)

    def decide(self, bar: Bar, item: Scored) -> bool:
        """Decide the pair at `bar`; ending, a near yes needs words too."""
        if not bar.passes(item):
            return False
        clear = item.p_met is not None and item.p_met >= bar.threshold + bar.weight
        return not self.ending or item.quoted or clear


CONFIGS = (
    Config("extract", ("extract",)),
    Config("look", ("look",)),
    Config("extract_ask", ("extract", "look")),
    Config("ending", ("extract", "look"), ending=True),
)


def lofo_decisions(
    config: Config, answers: Answers, chosen: Sequence[Item]
) -> tuple[dict[str, bool], dict[str, Bar]]:
    """Decide every pair with a bar fitted on the other families' judged pairs."""
    decided: dict[str, bool] = {}
    bars: dict[str, Bar] = {}
    for fold in folds(chosen):
        judged = [config.scored(answers, i) for i in fold.train if lint_decision(i) is None]
        bar = fit_bar(judged) if config.needs != ("extract",) else Bar(0.5)
        for item in fold.test:
            code = lint_decision(item)
            decided[item.key] = (
                code if code is not None else config.decide(bar, config.scored(answers, item))
            )
            bars[item.key] = bar
    return decided, bars


def loop_decisions(
    answers: Answers, chosen: Sequence[Item]
) -> tuple[dict[str, bool], dict[str, tuple[str, ...]]]:
    """Decide as the loop's critic does, a bar fitted on the other families.

    `extract_ask`'s decisions, but on an artifact whose every criterion passes (a draft a run
    would end on), a near yes stands only with words of the draft (`JudgeBar.ends_on`).
    """
    config, ending = (next(c for c in CONFIGS if c.name == n) for n in ("extract_ask", "ending"))
    decided, bars = lofo_decisions(config, answers, chosen)
    cases: dict[str, list[Item]] = {}
    for item in chosen:
        cases.setdefault(item.case.id, []).append(item)
    for case in cases.values():
        if all(decided[i.key] for i in case):
            for item in (i for i in case if lint_decision(i) is None):
                decided[item.key] = ending.decide(bars[item.key], config.scored(answers, item))
    return decided, {i.key: config.asked(answers, i, bars[i.key]) for i in chosen}


def _row(name: str, table: Agreement, n: str, calls: float, tokens: float) -> str:
    kappa = "-" if table.kappa is None else f"{table.kappa:.2f}"
    return (
        f"{name:16s} {100 * (table.accuracy or 0):4.0f}% {kappa:>6} "
        f"{share(table.false_pass, table.human_fail):>11} "
        f"{share(table.false_fail, table.human_pass):>11} {n:>9} {calls:11.1f} {tokens:12.0f}"
    )


HEADER = (
    f"{'':16s} {'agree':>5} {'kappa':>6} {'false pass':>11} {'false fail':>11} "
    "answered  calls/grade tokens/grade"
)


def figures(answers: Answers, by_family: str = "extract_ask") -> list[str]:
    """Return every configuration's leave-one-family-out table, then `by_family`'s per family."""
    every = list(items())
    lines = [f"leave one family out: {len(every)} pairs", f"{'configuration':16s}" + HEADER[16:]]
    per_family: list[str] = []
    for config in CONFIGS:
        chosen = [i for i in every if all(answers.row(v, i) for v in config.asked(answers, i))]
        decided, bars = lofo_decisions(config, answers, chosen)
        table = Agreement.of((i.pair.label, decided[i.key]) for i in chosen)
        calls, tokens = answers.cost([(i, config.asked(answers, i, bars[i.key])) for i in chosen])
        artifacts = len({i.case.id for i in chosen}) or 1
        n = f"{len(chosen)}/{len(every)}"
        lines.append(_row(config.name, table, n, calls / artifacts, tokens / artifacts))
        if config.name == "ending":
            loop, asked = loop_decisions(answers, chosen)
            table = Agreement.of((i.pair.label, loop[i.key]) for i in chosen)
            calls, tokens = answers.cost([(i, asked[i.key]) for i in chosen])
            lines.append(_row("loop", table, n, calls / artifacts, tokens / artifacts))
        if config.name != by_family:
            continue
        per_family = ["", f"{by_family}, each family left out in turn", "family" + HEADER[6:]]
        for fold in folds(chosen):
            part = Agreement.of((i.pair.label, decided[i.key]) for i in fold.test)
            cost = answers.cost([(i, config.asked(answers, i, bars[i.key])) for i in fold.test])
            size = len({i.case.id for i in fold.test}) or 1
            shown = f"{len(fold.test)}"
            per_family.append(_row(fold.family, part, shown, cost[0] / size, cost[1] / size))
    return lines + per_family


def shipped_profile(answers: Answers, model: str, path: Path) -> str:
    """Fit `extract_ask` on every family's judged pairs; save it; describe it."""
    config = next(c for c in CONFIGS if c.name == "extract_ask")
    chosen = [i for i in items() if all(answers.row(v, i) for v in config.asked(answers, i))]
    judged = [config.scored(answers, i) for i in chosen if lint_decision(i) is None]
    decided, _ = lofo_decisions(config, answers, chosen)
    table = Agreement.of((i.pair.label, decided[i.key]) for i in chosen)
    shown = table.as_json()
    bar = fit_bar(judged)
    profile = JudgeProfile(
        model=model,
        threshold=bar.threshold,
        quote_weight=bar.weight,
        labels=len(judged),
        cross_validated={name: shown[name] for name in FIGURES},
    )
    save_profile(profile, path)
    return (
        f"{path}: threshold {profile.threshold:.3f}, a quotation worth {profile.quote_weight:.2f}, "
        f"on {profile.labels} judged pairs; "
        f"leave one family out: kappa {table.kappa}, false pass {table.false_pass}/"
        f"{table.human_fail}, false fail {table.false_fail}/{table.human_pass}"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the leave-one-family-out figures; write the shipped profile if asked."""
    parse = argparse.ArgumentParser(prog="python -m benchmarks.judge.probe_figures")
    parse.add_argument("answers", type=Path)
    parse.add_argument("--profile", type=Path, help="write the shipped judge profile here")
    parse.add_argument("--model", default="openai:qwen2.5-coder-0.5b-instruct")
    args = parse.parse_args(argv)
    data = json.loads(args.answers.read_text())
    answers = Answers(data["rows"], data["answers"])
    print("\n".join(figures(answers)))
    if args.profile is not None:
        print("\n" + shipped_profile(answers, args.model, args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
