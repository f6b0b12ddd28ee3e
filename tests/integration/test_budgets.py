"""Run budgets over real HTTP: a run stops at its call, token or time budget, inside a round.

Each run here never passes (its judge keeps failing a criterion), so only a budget ends
it. The scripted model server counts what it was asked, and when.
"""

import json
from typing import Any

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.results import LoopExhausted, result_of
from critic_loop.state.budget import spent_on
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from tests.support.cli import model_args
from tests.support.openai_server import NeverQuiteThere, ScriptedOpenAIServer
from tests.support.rubrics import TASK

pytestmark = pytest.mark.integration

RUBRIC = [
    {"id": "tone", "text": "The answer is written for a beginner audience."},
    {"id": "example", "text": "The answer includes one concrete worked example."},
]
INPUT = {"task": TASK, "rubric": RUBRIC}


def run(server: ScriptedOpenAIServer, **settings: Any) -> LoopState:
    context = Context(
        worker_model="openai:w",
        critic_model="openai:c",
        base_url=server.base_url,
        memory=False,
        max_iterations=50,
        **settings,
    )
    return LoopState.model_validate(build_graph().invoke(INPUT, context=context))


def test_a_call_budget_stops_the_run_inside_a_round_with_the_best_draft() -> None:
    with ScriptedOpenAIServer(NeverQuiteThere()) as server:
        state = run(server, call_budget=5)
    # worker, judge, worker, judge, worker: round 3's judge call is refused
    assert len(server.requests) == 5
    assert spent_on(state.drafts, state.critiques).calls == 5
    assert (state.outcome, state.exhausted_by) == ("exhausted", "call_budget")
    assert state.outcome_reason == "the call budget ran out: 5 model call(s) of 5, without a pass"
    assert (state.final, state.final_round) == ("Draft number 2.", 2)  # the best, not the last
    with pytest.raises(LoopExhausted) as raised:  # the Python helpers' exception says so too
        result_of(state, {"on_exhausted": "raise"})
    assert raised.value.exhausted_by == "call_budget"
    last = state.critiques[-1]
    assert last.round == 3 and last.stopped == "the call budget ran out"
    assert {r.criterion_id: r.evidence for r in last.verdict.results} == {
        "tone": "Not graded this round: the call budget ran out.",
        "example": "Not graded this round: the call budget ran out.",
    }


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_many_candidates_and_judges_stop_at_the_call_budget_not_a_round_later(mode) -> None:
    """4 candidates, each graded by 5 judges per criterion: 44 calls a round, budget 12."""
    settings: dict[str, Any] = {
        "candidates": 4,
        "critic_samples": 5,
        "critic_temperature": 0.7,
        "judge_granularity": "criterion",
        "call_budget": 12,
    }
    with ScriptedOpenAIServer(NeverQuiteThere()) as server:
        context = Context(
            worker_model="openai:w",
            critic_model="openai:c",
            base_url=server.base_url,
            memory=False,
            **settings,
        )
        graph = build_graph()
        if mode == "invoke":
            values = graph.invoke(INPUT, context=context)
        else:
            values = await graph.ainvoke(INPUT, context=context)
    state = LoopState.model_validate(values)
    assert len(server.requests) == 12
    assert len(server.plain_requests()) == 4
    assert spent_on(state.drafts, state.critiques).calls == 12
    assert (state.outcome, state.exhausted_by, state.final_round) == ("exhausted", "call_budget", 1)
    assert state.final in {draft.text for draft in state.drafts}


def test_a_token_budget_admits_no_call_once_it_is_spent() -> None:
    budget = 2500
    with ScriptedOpenAIServer(NeverQuiteThere()) as server:
        state = run(server, token_budget=budget)
    reported = server.reported_tokens()
    spent = spent_on(state.drafts, state.critiques)
    assert spent.tokens == sum(reported)  # the history holds what the server reported
    assert spent.tokens >= budget
    assert all(sum(reported[:index]) < budget for index in range(len(reported)))
    assert (state.outcome, state.exhausted_by) == ("exhausted", "token_budget")
    assert state.outcome_reason.startswith("the token budget ran out: ")
    assert state.final in {draft.text for draft in state.drafts if draft.text}


def test_a_time_budget_admits_no_call_once_it_is_spent() -> None:
    """Each call takes 0.4 s; with 1 s, calls start at 0, 0.4 and 0.8 s of work, no later."""
    with ScriptedOpenAIServer(NeverQuiteThere(latency=0.4)) as server:
        state = run(server, time_budget_seconds=1.0)
    # worker and judge (round 1), worker (round 2); round 2's judge is refused
    assert len(server.requests) == 3
    assert (state.outcome, state.exhausted_by) == ("exhausted", "time_budget_seconds")
    assert state.outcome_reason.startswith("the time budget ran out: ")
    assert (state.final, state.final_round) == ("Draft number 1.", 1)
    assert spent_on(state.drafts, state.critiques).seconds >= 1.0
    assert server.arrivals[-1] - server.arrivals[0] < 1.0


def test_the_events_show_and_stats_say_which_budget_ended_the_run(run_cli) -> None:
    with ScriptedOpenAIServer(NeverQuiteThere()) as server:
        context = Context(
            worker_model="openai:w",
            critic_model="openai:c",
            base_url=server.base_url,
            memory=False,
            call_budget=3,
        )
        events = [
            event
            for event in build_graph().stream(INPUT, context=context, stream_mode="custom")
            if event["event"] in ("finished", "verdict")
        ]
        finished = events[-1]
        assert finished["exhausted_by"] == "call_budget"
        assert finished["spent"]["calls"] == 3
        assert events[-2]["stopped"] == "the call budget ran out"  # round 2's judge
        done = run_cli(
            "run",
            "--task",
            TASK,
            "--criterion",
            "tone=The answer is written for a beginner audience.",
            "--thread-id",
            "t-budget",
            "--call-budget",
            "3",
            "--no-memory",
            *model_args(server),
        )
    assert done.returncode == 1
    assert "round 2: 0/1 criteria passed" in done.stdout
    assert "(grading stopped: the call budget ran out)" in done.stdout
    assert "outcome: exhausted, call_budget reached after 2 round(s)" in done.stdout
    assert "why: the call budget ran out: 3 model call(s) of 3, without a pass" in done.stdout
    assert "spent: 3 model call(s), " in done.stdout
    shown = run_cli("show", "t-budget")
    assert "outcome: exhausted, call_budget reached after 2 round(s)" in shown.stdout
    assert "not graded this round: tone (grading stopped: the call budget ran out)" in (
        shown.stdout
    )
    figures = json.loads(run_cli("stats", "--json").stdout)
    assert figures["exhausted_by"] == {"call_budget": 1}
    assert figures["model_calls_per_run"]["median"] == 3
    assert "exhausted by: call_budget 1" in run_cli("stats").stdout
