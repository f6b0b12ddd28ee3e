"""The Temporal worker's graph is `loop_builder`'s, with Temporal's differences passed in."""

import asyncio
import os
from typing import Any

import pytest
from langgraph.graph import END, START
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, Send

from critic_loop.graphs.app import build_graph, loop_builder
from critic_loop.nodes import operator_policy
from critic_loop.nodes.loop.finalize import finalize
from critic_loop.nodes.loop.route import first_round, next_turn_or_route, route
from critic_loop.nodes.node import PolicedNode
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.loop import CriticView, LoopState
from critic_loop.state.operator_settings import OperatorSettings
from critic_loop.state.records import Critique
from critic_loop.state.rules import RecalledRule
from critic_loop.state.verdict import Verdict
from tests.support.graph_shapes import edges_of
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

try:
    from temporalio.langgraph import LangGraphPlugin

    from critic_loop.temporal.graph import (
        GRAPH_NAME,
        STORE_ON_WORKERS,
        TemporalState,
        build_temporal_graph,
        in_workflow,
    )
    from critic_loop.temporal.settings import (
        TemporalSettings,
        activity_options,
        node_budgets,
        unsupported_setting,
    )
except ImportError:  # pragma: no cover - depends on the installed extras
    if os.environ.get("CRITIC_LOOP_REQUIRE_TEMPORAL"):
        raise
    pytest.skip(
        "the temporal extra is not installed: pip install -e '.[temporal]'",
        allow_module_level=True,
    )

OPTIONS = activity_options(Context(), TemporalSettings())
IN_WORKFLOW = {"route", "finalize"}


def activities_of(graph: Any) -> set[str]:
    """The activity types the plugin registers for `graph`'s steps."""
    plugin = LangGraphPlugin(graphs={GRAPH_NAME: graph})
    return {a.__temporal_activity_definition.name for a in plugin.activities}


def test_on_temporal_distills_steps_become_steps_of_the_loop() -> None:
    graph = build_temporal_graph(OPTIONS)
    assert list(graph.nodes) == [
        *(name for name in loop_builder().nodes if name != "distill"),
        "propose_rules",
        "consolidate_rules",
    ]
    distill_steps = {
        ("record_rule_usage", "propose_rules", False),
        ("propose_rules", "consolidate_rules", True),
        ("propose_rules", END, True),
        ("consolidate_rules", END, False),
    }
    in_process = {e for e in edges_of(build_graph()) if "distill" not in e[:2]}
    assert edges_of(graph.compile()) == in_process | distill_steps
    # the state gains distill's working fields, and the result is the loop's state
    assert set(TemporalState.model_fields) == set(LoopState.model_fields) | {
        "lessons",
        "proposed",
        "source_thread_id",
    }
    assert set(DistillState.model_fields) <= set(TemporalState.model_fields)


def test_on_temporal_decisions_run_in_the_workflow_and_the_rest_in_activities() -> None:
    graph = build_temporal_graph(OPTIONS)
    where = {name: spec.metadata["execute_in"] for name, spec in graph.nodes.items()}
    assert {name for name, place in where.items() if place == "workflow"} == IN_WORKFLOW
    assert set(where) - IN_WORKFLOW == set(node_budgets(Context(), TemporalSettings()))
    assert callable(graph.nodes["generate"].metadata["summary_fn"])
    for name in IN_WORKFLOW:  # decisions and branches are async in the workflow
        assert asyncio.iscoroutinefunction(graph.nodes[name].runnable.afunc), name
    assert {source for source in graph.branches} == {"recall", "critique", "propose_rules"}
    for source, branches in graph.branches.items():
        for branch in branches.values():
            assert asyncio.iscoroutinefunction(branch.path.afunc), source
    activity_nodes = set(where) - IN_WORKFLOW
    assert activities_of(graph) == {f"{GRAPH_NAME}.{name}" for name in activity_nodes}


def test_an_activity_step_without_options_is_refused_by_name() -> None:
    options = {name: value for name, value in OPTIONS.items() if name != "critique"}
    with pytest.raises(KeyError, match="no activity options for step 'critique'"):
        build_temporal_graph(options)


def test_a_node_added_after_the_critique_shows_in_both_engines() -> None:
    def audit(view: CriticView, runtime: Runtime[Context]) -> dict[str, Any]:
        return {}

    added = {("critique", "post_critique_hook", False), ("post_critique_hook", "route", True)}
    in_process = edges_of(build_graph(post_critique_hook=audit))
    assert added <= in_process and ("critique", "route", True) not in in_process

    options = {**OPTIONS, "post_critique_hook": OPTIONS["critique"]}
    graph = build_temporal_graph(options, post_critique_hook=audit)
    assert graph.nodes["post_critique_hook"].metadata["execute_in"] == "activity"
    on_temporal = edges_of(graph.compile())
    assert added <= on_temporal and ("critique", "route", True) not in on_temporal
    assert ("consolidate_rules", END, False) in on_temporal  # and distill is still inlined
    assert f"{GRAPH_NAME}.post_critique_hook" in activities_of(graph)


def round_of(number: int, *failing: str) -> Critique:
    verdict = Verdict.model_validate(graded(RUBRIC, dict.fromkeys(failing, "fix")))
    return Critique(round=number, verdict=verdict)


STATES = {
    "revise": [round_of(1, "tone")],
    "passed": [round_of(1, "tone"), round_of(2)],
    "exhausted": [round_of(1, "tone"), round_of(2, "tone"), round_of(3, "length")],
    "stalled": [round_of(1, "tone"), round_of(2, "tone"), round_of(3, "tone")],
}
SETTLED = operator_policy.held_to_ceilings(
    Context(max_iterations=3, stall_rounds=3, on_stall="resample"),
    operator_policy.Trust(served=False, settings=OperatorSettings()),
)
"""As `settle_context` leaves it: complete, and held to the worker's ceilings (budgets set)."""


def loop_state(critiques: list[Critique], **fields: Any) -> LoopState:
    drafts = [{"round": c.round, "text": f"draft {c.round}"} for c in critiques]
    return LoopState(task=TASK, rubric=RUBRIC, critiques=critiques, drafts=drafts, **fields)


def target(goto: Any) -> Any:
    if isinstance(goto, list):
        return [target(item) for item in goto]
    return (goto.node, goto.arg) if isinstance(goto, Send) else goto


def comparable(command: Command[Any]) -> tuple[Any, Any]:
    return target(command.goto), command.update


def in_the_workflow(decision: Any, state: LoopState, context: Context) -> Any:
    """Run `decision` as the workflow does: its context as settled JSON, no store."""
    runtime = Runtime(context=context.model_dump(mode="json"))
    return asyncio.run(in_workflow(decision)(state, runtime))


@pytest.mark.parametrize("history", list(STATES))
@pytest.mark.parametrize("memory", [True, False])
def test_in_the_workflow_the_decisions_decide_as_in_process(history, memory) -> None:
    context = SETTLED.model_copy(update={"memory": memory})
    rules = [RecalledRule(id="r1", text="Be brief.", scope="default")]
    state = loop_state(STATES[history], recalled_rules=rules)
    in_process = Runtime(context=context, store=InMemoryStore())  # the workers hold a store
    routed = PolicedNode(route)(state, in_process)
    assert comparable(in_the_workflow(route, state, context)) == comparable(routed)
    ending = (routed.update or {}).get("ending")
    assert (ending is None) == (history == "revise")
    if ending is not None:  # finalize ends the run as route decided
        ended = state.model_copy(update={"ending": ending})
        expected = PolicedNode(finalize)(ended, in_process)
        assert comparable(in_the_workflow(finalize, ended, context)) == comparable(expected)
    edge = next_turn_or_route(state, in_process)
    assert target(in_the_workflow(next_turn_or_route, state, context)) == target(edge)
    assert (edge == "route") == (history != "revise")  # only a run that goes on skips route


def test_in_the_workflow_finalize_ends_a_run_whose_memory_has_nothing_to_do() -> None:
    state = loop_state(STATES["passed"], ending={"outcome": "passed", "reason": "it passed"})
    ended = in_the_workflow(finalize, state, SETTLED.model_copy(update={"memory": False}))
    assert ended.goto == "__end__"
    assert ended.update["memory_report"]["skipped"] == "distillation is turned off for this run"
    learning = in_the_workflow(finalize, state, SETTLED)
    assert learning.goto == "record_rule_usage"  # STORE_ON_WORKERS: the workers have a store


def test_in_the_workflow_a_decision_reads_no_operator_policy(monkeypatch) -> None:
    def from_the_environment() -> None:
        raise AssertionError("a workflow read the operator's settings")

    monkeypatch.setattr(operator_policy, "operator_settings", from_the_environment)
    state = loop_state(STATES["revise"])
    with pytest.raises(AssertionError, match="operator's settings"):
        PolicedNode(route)(state, Runtime(context=SETTLED))  # in process: held to the policy
    sent = in_the_workflow(route, state, SETTLED).goto
    assert isinstance(sent, Send) and sent.node == "generate"
    runtime = Runtime(context=SETTLED.model_dump(mode="json"))
    turns = asyncio.run(in_workflow(first_round)(loop_state([]), runtime))
    assert [turn.node for turn in turns] == ["generate"]


def test_the_workers_store_stands_in_the_workflow_but_cannot_be_used_there() -> None:
    with pytest.raises(RuntimeError, match="on the Temporal workers"):
        STORE_ON_WORKERS.get(("rules", "default"), "r1")
    with pytest.raises(RuntimeError, match="on the Temporal workers"):
        asyncio.run(STORE_ON_WORKERS.aget(("rules", "default"), "r1"))


def test_review_is_refused_on_temporal() -> None:
    assert unsupported_setting(Context()) is None
    for review in ("every_round", "on_stall", "on_exhausted"):
        problem = unsupported_setting(Context(review=review))
        assert problem is not None and f"review {review!r} is not available" in problem


def test_the_temporal_graph_starts_where_the_loop_starts() -> None:
    edges = edges_of(build_temporal_graph(OPTIONS).compile())
    assert (START, "check_input", False) in edges
