"""The judge probe: answers cached per request, and figures recomputed from them alone."""

from __future__ import annotations

import json
import math
from pathlib import Path

from benchmarks.judge import families, probe
from benchmarks.judge.probe_figures import Answers, figures
from critic_loop.nodes.verifiers.yes_no import yes_no_prompt

PROBE = Path(probe.__file__).parent / "results" / "probe-local-0.5b-families.json"
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
    loop = next(line for line in table if line.startswith("loop "))  # decided as the loop does
    extract_ask = next(line for line in table if line.startswith("extract_ask "))
    passes = [int(line.split()[3].split("/")[0]) for line in (loop, extract_ask)]
    assert passes[0] <= passes[1]  # the loop only withholds passes: a near yes needs words
    assert loop.split()[-2] == extract_ask.split()[-2]  # and asks what extract_ask asks


def test_the_shipped_judge_decides_the_held_out_set_as_the_probe_measured() -> None:
    """The product, answered over HTTP with the probe's cached replies, decides as the probe.

    A run naming the local model gets `extract_ask` with the shipped judge profile; each of
    its requests is one the probe asked (the same messages, the shipped worked examples), so
    its decisions on the held-out set are those its bar gives the cached answers: the words
    asked for only near the bar, and on an artifact whose every criterion passes (a draft a
    run would end on) a near yes standing only with words of the draft.
    """
    from langchain_core.messages import messages_from_dict

    from benchmarks.judge.probe_figures import lint_decision
    from critic_loop.grading import critique_artifact
    from critic_loop.judge_fit import Bar, Scored
    from critic_loop.nodes.verifiers.judge_profile import judge_profile
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

    model = f"openai:{settings['model']}"
    profile = judge_profile(model)
    assert profile is not None
    bar = Bar(profile.threshold, profile.quote_weight)
    expected: list[bool] = []
    for case in families.SETS["held_out"]:
        decided = {}
        for item in (i for i in families.items(["held_out"]) if i.case is case):
            code = lint_decision(item)
            said = Scored(answers.look(item, "look_all"), True, "", answers.quoted(item))
            decided[item.pair.id] = (code, said) if code is not None else (None, said)
        passed = {k: c if c is not None else bar.passes(s) for k, (c, s) in decided.items()}
        if all(passed.values()):  # a draft a run would end on
            clear = bar.threshold + bar.weight
            for key, (code, said) in decided.items():
                near = code is None and not said.quoted and (said.p_met or 0) < clear
                passed[key] = passed[key] and not near
        expected += [passed[pair.id] for pair in case.pairs]
    decisions = []
    with ScriptedOpenAIServer(replay, model_id=settings["model"]) as server:
        context = {"critic_model": model, "base_url": server.base_url}
        for case in families.SETS["held_out"]:
            rubric = [{"id": pair.id, "text": pair.text} for pair in case.pairs]
            critique = critique_artifact(case.artifact, rubric, context)
            assert critique.verdict is not None
            decisions += [result.passed for result in critique.verdict.results]
    assert len(decisions) == 48 and decisions == expected
