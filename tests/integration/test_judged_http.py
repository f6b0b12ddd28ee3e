"""Judged criteria over real HTTP, with the small model's shipped judge profile.

A scripted server serves `qwen2.5-coder-0.5b-instruct`, so a run gets that model's default
judge (`extract_ask`: a yes/no look read from the first token's log-probabilities, the
judge's words asked for near the bar) and its shipped profile (threshold 0.674, a quotation
worth 0.20). The server answers each look with the P(met) a test sets for its criterion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.state.context import Context
from tests.support.openai_server import (
    ScriptedOpenAIServer,
    Text,
    artifact_of,
    is_extract_request,
    is_yes_no_request,
)

pytestmark = pytest.mark.integration

MODEL = "qwen2.5-coder-0.5b-instruct"


def look(p_met: float) -> Text:
    """A yes/no answer whose first token says yes with probability `p_met`."""
    alternatives = (("yes", math.log(p_met)), ("no", math.log(1 - p_met)))
    return Text("yes" if p_met >= 0.5 else "no", top_logprobs=alternatives)


def statement_of(request: dict[str, Any]) -> str:
    """The criterion a judge request asks about (its last "Statement:" line)."""
    text = str(request["messages"][-1].get("content") or "")
    return text.split("Statement:")[-1].splitlines()[0].strip()


@dataclass
class SmallJudge:
    """Drafts in order; a look answers P(met) per (criterion, draft); words as scripted."""

    drafts: list[str]
    p_met: dict[tuple[str, str], float]
    words: dict[tuple[str, str], str] = field(default_factory=dict)
    worker_prompts: list[str] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> Text:
        if is_yes_no_request(request):
            return look(self.p_met[(statement_of(request), artifact_of(request))])
        if is_extract_request(request):
            key = (statement_of(request), artifact_of(request))
            return Text(self.words.get(key, "NONE"))
        self.worker_prompts.append(str(request["messages"][-1].get("content") or ""))
        return Text(self.drafts.pop(0))


def run(judge: SmallJudge, rubric: list[dict[str, str]], rounds: int = 1) -> dict[str, Any]:
    with ScriptedOpenAIServer(judge, model_id=MODEL) as server:
        context = Context(
            worker_model=f"openai:{MODEL}",
            critic_model=f"openai:{MODEL}",
            base_url=server.base_url,
            memory=False,
            candidates=1,
            max_iterations=rounds,
        )
        out = build_graph().invoke({"task": "Write it.", "rubric": rubric}, context=context)
        out["requests"] = server.requests
        return out


def judged(out: dict[str, Any], round_number: int = 1) -> dict[str, dict[str, Any]]:
    critique = next(c for c in out["critiques"] if c["round"] == round_number)
    return {result["criterion_id"]: result for result in critique["verdict"]["results"]}


DOCTOR = {"id": "doctor", "text": "It advises the reader to see a doctor."}
FEVER = "If the fever lasts more than three days, see a doctor."


def test_a_judge_that_copies_no_words_is_not_final_its_yes_decides() -> None:
    """Seen on unseen labels: this pair failed on "NONE" with no second look."""
    judge = SmallJudge([FEVER], {(DOCTOR["text"], FEVER): 0.93})  # its words would be NONE
    out = run(judge, [DOCTOR])
    assert out["outcome"] == "passed"
    assert judged(out)["doctor"]["evidence"].startswith("Met: asked yes or no, P(met) 0.93")
    assert not any(is_extract_request(request) for request in out["requests"])


NAMES = {"id": "structure", "text": "It names a data structure."}
WHOLE = "hash map"
LONGER = "A hash map stores each value under its key."


def test_a_short_draft_quoted_whole_is_no_evidence_where_a_part_of_a_longer_one_is() -> None:
    p_met = {(NAMES["text"], WHOLE): 0.6, (NAMES["text"], LONGER): 0.6}  # near the bar, 0.674
    words = {(NAMES["text"], WHOLE): "hash map", (NAMES["text"], LONGER): "hash map"}
    whole = judged(run(SmallJudge([WHOLE], p_met, words), [NAMES]))["structure"]
    part = judged(run(SmallJudge([LONGER], p_met, words), [NAMES]))["structure"]
    assert not whole["passed"] and "0.60 < 0.67" in whole["evidence"]
    assert part["passed"] and part["evidence"].startswith('Met: "hash map"; with these words')


MEETING = {"id": "meeting", "text": "It gives the meeting day and time: Tuesday at 7 pm."}
SETS = {"id": "sets", "text": "It asks members to bring their own chess set."}
FIRST = "Welcome to the chess club! We meet every Tuesday at 7 pm in the library hall."
SHRUNK = "Welcome, bring a chess set."
SETS_TOLD = "Ask members to bring their own chess set."


def test_a_revision_that_drops_a_pass_and_most_of_its_text_is_not_the_final_draft() -> None:
    p_met = {
        (MEETING["text"], FIRST): 0.95,
        (SETS["text"], FIRST): 0.05,
        (SETS["text"], SHRUNK): 0.95,
    }
    out = run(SmallJudge([FIRST, SHRUNK], p_met), [MEETING, SETS], rounds=2)
    assert judged(out, 2)["meeting"]["source"] == "check"  # no Tuesday, no 7: ruled out by code
    assert out["critiques"][1]["regressed"]
    assert (out["outcome"], out["final"], out["final_round"]) == ("exhausted", FIRST, 1)
    [still] = out["open_items"]  # what the final draft fails, and what to do about it
    assert (still["criterion_id"], still["hint"]) == ("sets", SETS_TOLD)


def test_a_failed_judged_criterion_reaches_the_worker_as_what_to_do() -> None:
    p_met = {
        (MEETING["text"], FIRST): 0.95,
        (SETS["text"], FIRST): 0.05,
        (SETS["text"], FIRST + " Bring your own chess set."): 0.95,
        (MEETING["text"], FIRST + " Bring your own chess set."): 0.95,
    }
    judge = SmallJudge([FIRST, FIRST + " Bring your own chess set."], p_met)
    out = run(judge, [MEETING, SETS], rounds=2)
    assert out["outcome"] == "passed"
    revision_prompt = judge.worker_prompts[1]
    assert f"- {SETS_TOLD}" in revision_prompt
    assert "in words a reader can point to" not in revision_prompt  # the old stock sentence
    assert "P(met)" not in revision_prompt  # no judge's evidence reaches the worker
