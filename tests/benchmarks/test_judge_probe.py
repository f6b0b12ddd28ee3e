"""The judge probe: answers cached per request, and figures recomputed from them alone."""

from __future__ import annotations

import math

from benchmarks.judge import probe
from benchmarks.judge.probe_figures import Answers, figures
from critic_loop.nodes.verifiers.yes_no import yes_no_prompt


def test_a_request_is_cached_under_one_key_whatever_its_fresh_fence() -> None:
    first = yes_no_prompt("It names a season.", "Snow in winter.")
    second = yes_no_prompt("It names a season.", "Snow in winter.")
    assert first[-1].text != second[-1].text  # a fresh random fence each time
    assert probe.cache_key(first, {"max_tokens": 1}) == probe.cache_key(second, {"max_tokens": 1})
    assert probe.cache_key(first, {"max_tokens": 1}) != probe.cache_key(first, {"max_tokens": 2})


def test_a_yes_no_variant_keeps_p_met_and_what_it_asked() -> None:
    class Scripted(probe.Probe):
        def __init__(self) -> None:
            self.answers = {}
            self.settings = {"model": "m"}
            self.asked: list[int] = []

        def ask(self, messages, max_tokens):  # type: ignore[no-untyped-def]
            self.asked.append(max_tokens)
            top = [("Yes", math.log(0.75)), ("No", math.log(0.25))]
            return "k", {"text": "Yes", "top": top}

    item = next(probe.items(["held_out"]))
    row = probe.run_variant(Scripted(), "question", item)
    assert row["asked"] == ["k"]
    assert abs(row["p_met"] - 0.75) < 1e-9


def test_figures_come_from_the_cached_answers_alone() -> None:
    rows, asked = {}, {}
    for item in probe.items(["held_out"]):
        key = f"k-{item.key}"
        asked[key] = {"prompt_tokens": 100, "completion_tokens": 1, "seconds": 1.0}
        rows[f"question:{item.key}"] = {"p_met": 0.9 if item.pair.label else 0.1, "asked": [key]}
    table = figures(Answers(rows, asked), "held_out", cv=False)
    perfect = next(line for line in table if line.startswith("question@0.5 "))
    assert "100%   1.00" in perfect
    assert "48/48" in perfect
    assert "3.0          303" in perfect  # 3 calls and 303 tokens a grade
