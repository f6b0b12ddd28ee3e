"""The judge probe: answers cached per request, and figures recomputed from them alone."""

from __future__ import annotations

import math
from pathlib import Path

from benchmarks.judge import families, probe
from benchmarks.judge.probe_figures import Answers, figures
from critic_loop.nodes.verifiers.yes_no import yes_no_prompt

PROBE = Path(probe.__file__).parent / "results" / "probe-local-0.5b.json"
"""The probe's cached answers of the local 0.5B model."""


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

    item = next(families.items(["held_out"]))
    row = probe.run_variant(Scripted(), "look", item)
    assert row["asked"] == ["k"]
    assert abs(row["p_met"] - 0.75) < 1e-9


def test_the_look_a_fold_measures_never_shows_the_examples_of_its_own_family() -> None:
    item = next(i for i in families.items() if i.case.family == "language")
    shown = " ".join(m.text for m in probe.YES_NO["look"](item))
    every = " ".join(m.text for m in probe.YES_NO["look_all"](item))
    assert "Hace sol y vamos a la playa." in every and "Hace sol" not in shown


def test_figures_leave_each_family_out_and_come_from_the_cached_answers_alone() -> None:
    rows, asked = {}, {}
    for item in families.items():
        key = f"k-{item.key}"
        asked[key] = {"prompt_tokens": 100, "completion_tokens": 1, "seconds": 1.0}
        rows[f"extract:{item.key}"] = {"text": "NONE", "asked": [key]}
        rows[f"look:{item.key}"] = {"p_met": 0.9 if item.pair.label else 0.1, "asked": [key]}
    table = figures(Answers(rows, asked))
    perfect = next(line for line in table if line.startswith("extract_ask "))
    assert "100%   1.00" in perfect  # a look that knows every label, fitted on other families
    quoted = next(line for line in table if line.startswith("extract "))
    assert quoted.split()[3].startswith("0/")  # NONE everywhere: the quote alone passes nothing
    assert any(line.startswith("degenerate ") for line in table)  # a row per family left out
