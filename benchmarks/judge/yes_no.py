"""A probe of yes/no judging by token log-probabilities, on the judge benchmark's set.

Not a configuration of the critic: it measures whether the model's first-token
probabilities of "yes" and "no" separate the labels, which a judge that reads them would
need. For each pair it asks two one-token questions with `logprobs` (llama-cpp-python's
server and OpenAI's return them for chat completions): "is the statement true of the
text?" and "is it false?". It reports, over the pairs:

- **argmax**: pass when "yes" is likelier than "no";
- **agreement**: pass only when the model says yes to the statement and no to its
  negation (a bias towards one answer cancels out);
- **threshold**: pass when P(yes) / (P(yes) + P(no)) is at least a threshold chosen on
  half of the artifacts (the lowest false-fail rate with at most 10% false passes) and
  applied to the other half, both ways (two-fold, split by artifact: no pair is judged
  with a threshold chosen on its own artifact); also for P(yes) minus P(yes | negated).

    python -m benchmarks.judge.yes_no --base-url URL --model NAME --out probe.json

The answers are kept in `--out` (rerun to resume); the figures go to stdout.
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.judge.held_out import HELD_OUT
from benchmarks.judge.labelset import select

SYSTEM = "You check one statement about a text. Answer only yes or no."
QUESTIONS = {
    "true": "Is the statement true of the text? Answer yes or no.",
    "false": "Is the statement false of the text? Answer yes or no.",
}
MAX_FALSE_PASS = 0.10
"""The largest false-pass rate a threshold may have on the half it is chosen on."""


def messages(artifact: str, statement: str, question: str) -> list[dict[str, str]]:
    """Return the one-token question about one statement."""
    user = f'Text:\n"""\n{artifact}\n"""\n\nStatement: {statement}\n{QUESTIONS[question]}'
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def share_of_yes(top: Sequence[dict[str, Any]]) -> float:
    """Return P(yes) / (P(yes) + P(no)) from a first token's top log-probabilities."""
    yes = sum(math.exp(t["logprob"]) for t in top if t["token"].strip().lower() == "yes")
    no = sum(math.exp(t["logprob"]) for t in top if t["token"].strip().lower() == "no")
    return yes / (yes + no) if yes + no > 0 else 0.5


Decided = dict[tuple[str, str], bool]


def rates(decided: Decided, labels: dict[tuple[str, str], bool]) -> tuple[int, int, int, int]:
    """Return (false passes, pairs not met, false fails, pairs met)."""
    false_pass = sum(decided[k] and not labels[k] for k in decided)
    false_fail = sum(not decided[k] and labels[k] for k in decided)
    met = sum(labels[k] for k in decided)
    return false_pass, len(decided) - met, false_fail, met


def threshold_for(
    scores: dict[tuple[str, str], float], labels: dict[tuple[str, str], bool]
) -> float:
    """Return the threshold with the fewest false fails and at most 10% false passes."""
    best = (math.inf, math.inf)
    for candidate in [*sorted(set(scores.values())), math.inf]:
        decided = {k: s >= candidate for k, s in scores.items()}
        false_pass, unmet, false_fail, _ = rates(decided, labels)
        if false_pass <= MAX_FALSE_PASS * unmet and false_fail < best[1]:
            best = (candidate, false_fail)
    return best[0]


def cross_validated(
    scores: dict[tuple[str, str], float], labels: dict[tuple[str, str], bool], cases: list[str]
) -> Decided:
    """Decide each half of the artifacts with the threshold chosen on the other half."""
    decided: Decided = {}
    for fold in (0, 1):
        chosen = {k: s for k, s in scores.items() if cases.index(k[0]) % 2 == fold}
        other = {k: s for k, s in scores.items() if cases.index(k[0]) % 2 != fold}
        threshold = threshold_for(chosen, labels)
        decided |= {k: s >= threshold for k, s in other.items()}
    return decided


def report(rows: list[dict[str, Any]]) -> list[str]:
    """Return the figures of every rule over the pairs both questions were asked about."""
    share: dict[tuple[str, str], dict[str, float]] = {}
    labels: dict[tuple[str, str], bool] = {}
    for row in rows:
        key = (row["case"], row["pair"])
        share.setdefault(key, {})[row["question"]] = row["share_of_yes"]
        labels[key] = row["label"]
    keys = [k for k, v in share.items() if len(v) == 2]
    cases = list(dict.fromkeys(k[0] for k in keys))
    plain = {k: share[k]["true"] for k in keys}
    contrast = {k: share[k]["true"] - share[k]["false"] for k in keys}
    rules: dict[str, Callable[[], Decided]] = {
        "argmax": lambda: {k: plain[k] > 0.5 for k in keys},
        "agreement": lambda: {k: plain[k] > 0.5 and share[k]["false"] < 0.5 for k in keys},
        "threshold, cross-validated": lambda: cross_validated(plain, {**labels}, cases),
        "contrast threshold, cross-validated": lambda: cross_validated(contrast, labels, cases),
    }
    lines = [f"{len(keys)} pairs, {len(cases)} artifacts"]
    for name, rule in rules.items():
        false_pass, unmet, false_fail, met = rates(rule(), labels)
        lines.append(
            f"{name:36s} false pass {false_pass}/{unmet} {false_pass / max(unmet, 1):.0%}"
            f"   false fail {false_fail}/{met} {false_fail / max(met, 1):.0%}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Ask the questions not asked yet, then print the figures."""
    parse = argparse.ArgumentParser(prog="python -m benchmarks.judge.yes_no")
    parse.add_argument("--base-url", required=True)
    parse.add_argument("--model", required=True, help="the name the server knows it by")
    parse.add_argument("--out", type=Path, required=True)
    parse.add_argument("--held-out", action="store_true")
    parse.add_argument("--timeout", type=float, default=1800.0)
    args = parse.parse_args(argv)
    from openai import OpenAI

    client = OpenAI(base_url=args.base_url, api_key="local", timeout=args.timeout)
    rows: list[dict[str, Any]] = json.loads(args.out.read_text()) if args.out.exists() else []
    done = {(r["case"], r["pair"], r["question"]) for r in rows}
    cases = list(HELD_OUT) if args.held_out else select()
    for case in cases:
        for pair in case.pairs:
            for question in QUESTIONS:
                if (case.id, pair.id, question) in done:
                    continue
                reply = client.chat.completions.create(
                    model=args.model,
                    messages=messages(case.artifact, pair.text, question),  # type: ignore[arg-type]
                    max_tokens=1,
                    temperature=0,
                    logprobs=True,
                    top_logprobs=10,
                )
                content = reply.choices[0].logprobs
                tokens = content.content if content else None
                top = [t.model_dump() for t in tokens[0].top_logprobs] if tokens else []
                rows.append(
                    {
                        "case": case.id,
                        "pair": pair.id,
                        "label": pair.label,
                        "question": question,
                        "share_of_yes": share_of_yes(top),
                        "prompt_tokens": reply.usage.prompt_tokens if reply.usage else None,
                    }
                )
                args.out.write_text(json.dumps(rows, indent=1))
                print(
                    f"{case.id}/{pair.id} {question}: {rows[-1]['share_of_yes']:.3f}",
                    file=sys.stderr,
                )
    print("\n".join(report(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
