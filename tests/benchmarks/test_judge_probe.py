"""The judge probe: answers cached per request, and figures recomputed from them alone."""

from __future__ import annotations

import json
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


def test_the_shipped_judge_decides_the_held_out_set_as_the_probe_measured() -> None:
    """The product, answered over HTTP with the probe's cached replies, decides as the probe.

    A run naming the local model gets `extract_ask` with the shipped judge profile; each of
    its requests is one the probe asked (the same messages), so its decisions on the held-out
    set are those `probe_figures` counts for `extract|calibrated@fit+lint`.
    """
    from langchain_core.messages import messages_from_dict

    from benchmarks.judge.probe_figures import configs, decide, judged, scored_items, threshold_of
    from critic_loop.grading import critique_artifact
    from tests.support.openai_server import ScriptedOpenAIServer, Text

    data = json.loads(PROBE.read_text())
    answers = Answers(data["rows"], data["answers"])
    settings = dict(data["settings"])
    types = {"system": "system", "user": "human", "assistant": "ai"}

    def replay(request: dict) -> Text:
        sent = [
            {"type": types[m["role"]], "data": {"content": m["content"]}}
            for m in request["messages"]
        ]
        key = probe.cache_key(
            messages_from_dict(sent), {**settings, "max_tokens": request["max_tokens"]}
        )
        found = data["answers"][key]  # every request is one the probe asked
        return Text(found["text"], top_logprobs=tuple(map(tuple, found["top"])))

    config = next(c for c in configs(answers) if c.name == "extract|calibrated@fit+lint")
    held_out = list(probe.items(["held_out"]))
    threshold = threshold_of(config, answers)
    expected = decide(
        config,
        held_out,
        [
            s.p_met is not None and s.p_met >= threshold
            for s in scored_items(config, judged(config, held_out))
        ],
    )
    decided, calls = [], 0
    with ScriptedOpenAIServer(replay, model_id=settings["model"]) as server:
        context = {"critic_model": f"openai:{settings['model']}", "base_url": server.base_url}
        for case in families.SETS["held_out"]:
            rubric = [{"id": pair.id, "text": pair.text} for pair in case.pairs]
            critique = critique_artifact(case.artifact, rubric, context)
            assert critique.verdict is not None
            decided += [result.passed for result in critique.verdict.results]
            calls += critique.attempts
    assert len(decided) == 48 and decided == expected
    assert calls == len(server.requests) == 80  # 5.0 critic calls an artifact
