"""The graph is declared once: the in-process graph is that declaration, and each way the
Temporal graph differs from it is declared in graphs/temporal_differences.py and shown here."""

import ast
import asyncio
import inspect
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

import pytest
from langgraph.graph import END, START
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, Send

from critic_loop.graphs.app import LOOP, build_graph
from critic_loop.graphs.declaration import Branch, Edge, GraphDeclaration, Step
from critic_loop.graphs.distill import DISTILL, build_distill_graph
from critic_loop.graphs.temporal_differences import (
    STORE_ON_WORKERS,
    for_temporal,
    in_workflow,
    inline_subgraphs,
    unsupported_setting,
)
from critic_loop.nodes import operator_policy
from critic_loop.nodes.loop.finalize import finalize
from critic_loop.nodes.loop.route import route
from critic_loop.nodes.steps import StepsNode
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.loop import CriticView, LoopState
from critic_loop.state.operator_settings import OperatorSettings
from critic_loop.state.records import Critique
from critic_loop.state.rules import RecalledRule
from critic_loop.state.verdict import Verdict
from tests.support.graph_shapes import declared_edges, edges_of, with_audit
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

ROOT = Path(__file__).resolve().parents[2]


def test_the_compiled_loop_is_exactly_its_declaration() -> None:
    graph = build_graph()
    assert set(graph.get_graph().nodes) == {START, END} | {step.name for step in LOOP.steps}
    assert edges_of(graph) == declared_edges(LOOP)
    # the distill step runs its subgraph without checkpoints of its own (the run's history
    # would be stored twice more), so LangGraph does not count it among the subgraphs
    assert list(graph.get_subgraphs()) == []
    assert edges_of(build_distill_graph()) == declared_edges(DISTILL)


def test_every_step_reads_the_view_its_node_declares_and_goes_where_it_says() -> None:
    for declaration in (LOOP, DISTILL):
        for step in declaration.steps:
            if isinstance(step.node, GraphDeclaration):
                continue
            if isinstance(step.node, StepsNode):
                assert step.input_schema is step.node.InputType, step.name
                continue
            hints = get_type_hints(step.node)
            first = next(iter(inspect.signature(step.node).parameters))
            assert step.input_schema is hints[first], step.name
            returned = hints["return"]
            if get_origin(returned) is Command:
                (targets,) = get_args(returned)
                assert get_origin(targets) is Literal
                assert set(step.destinations) == set(get_args(targets)), step.name


def test_a_step_added_to_the_declaration_runs_in_process(models, context, loop_input) -> None:
    audited: list[int] = []

    def audit(view: CriticView) -> dict[str, Any]:
        audited.append(len(view.critiques))
        return {}

    changed = with_audit(LOOP, audit)
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler words"}), graded(RUBRIC))
    graph = build_graph(declaration=changed)
    out = graph.invoke(loop_input, context=context.model_copy(update={"memory": False}))
    assert out["outcome"] == "passed"
    assert audited == [1, 2]  # once per round, after the critique
    edges = edges_of(graph)
    assert {("critique", "audit", False), ("audit", "route", False)} <= edges
    assert ("critique", "route", False) not in edges
    assert edges_of(build_graph()) == declared_edges(LOOP)  # LOOP itself is unchanged


def test_on_temporal_distills_steps_become_steps_of_the_loop() -> None:
    temporal = for_temporal(LOOP)
    names = [step.name for step in temporal.steps]
    assert names == [
        *(s.name for s in LOOP.steps if s.name != "distill"),
        "propose_rules",
        "consolidate_rules",
    ]
    assert not any(isinstance(step.node, GraphDeclaration) for step in temporal.steps)
    plain = {(e.source, e.target) for e in temporal.edges if isinstance(e, Edge)}
    assert ("record_rule_usage", "propose_rules") in plain
    assert ("consolidate_rules", END) in plain
    assert not any("distill" in (e.source, getattr(e, "target", "")) for e in temporal.edges)
    # the state gains distill's working fields, and the result is the loop's state
    assert set(temporal.state.model_fields) == set(LoopState.model_fields) | {
        "lessons",
        "proposed",
        "source_thread_id",
    }
    assert set(DistillState.model_fields) <= set(temporal.state.model_fields)
    assert temporal.output_schema is LoopState


def test_on_temporal_decisions_run_in_the_workflow_and_the_rest_in_activities() -> None:
    temporal = for_temporal(LOOP)
    where = {step.name: step.metadata["execute_in"] for step in temporal.steps}
    assert {name for name, place in where.items() if place == "workflow"} == {"route", "finalize"}
    assert {name for name, place in where.items() if place == "activity"} == {
        "check_input",
        "recall",
        "generate",
        "critique",
        "record_rule_usage",
        "propose_rules",
        "consolidate_rules",
    }
    assert callable(temporal.step("generate").metadata["summary_fn"])
    # decisions and branches are async in the workflow
    for step in temporal.steps:
        if step.decision:
            assert inspect.iscoroutinefunction(step.node), step.name
    branches = [edge for edge in temporal.edges if isinstance(edge, Branch)]
    assert {edge.source for edge in branches} == {"recall", "propose_rules"}
    assert all(inspect.iscoroutinefunction(edge.path) for edge in branches)


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


def comparable(command: Command[Any]) -> tuple[Any, Any]:
    goto = command.goto
    return (goto.node, goto.arg) if isinstance(goto, Send) else goto, command.update


def in_the_workflow(decision: Any, state: LoopState, context: Context) -> Any:
    """Run `decision` as the workflow does: its context as settled JSON, no store."""
    runtime = Runtime(context=context.model_dump(mode="json"))
    return asyncio.run(in_workflow(decision)(state, runtime))


@pytest.mark.parametrize("history", list(STATES))
@pytest.mark.parametrize("memory", [True, False])
def test_in_the_workflow_route_and_finalize_decide_as_in_process(history, memory) -> None:
    context = SETTLED.model_copy(update={"memory": memory})
    rules = [RecalledRule(id="r1", text="Be brief.", scope="default")]
    state = loop_state(STATES[history], recalled_rules=rules)
    in_process = Runtime(context=context, store=InMemoryStore())  # the workers hold a store
    for decision in (route, finalize):
        expected = decision(state, in_process)
        assert comparable(in_the_workflow(decision, state, context)) == comparable(expected)


def test_in_the_workflow_finalize_ends_a_run_whose_memory_has_nothing_to_do() -> None:
    state = loop_state(STATES["passed"])
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
        route(state, Runtime(context=SETTLED))  # in process: held to the policy
    sent = in_the_workflow(route, state, SETTLED).goto
    assert isinstance(sent, Send) and sent.node == "generate"
    (branch,) = [
        e for e in for_temporal(LOOP).edges if isinstance(e, Branch) and e.source == "recall"
    ]
    runtime = Runtime(context=SETTLED.model_dump(mode="json"))
    turns = asyncio.run(branch.path(loop_state([]), runtime))
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


def test_a_subgraph_that_cannot_be_inlined_is_refused() -> None:
    followed = replace(LOOP, edges=(*LOOP.edges[:-1], Edge("distill", "check_input")))
    with pytest.raises(ValueError, match="subgraph step 'distill' cannot be inlined"):
        inline_subgraphs(followed)
    clash = replace(DISTILL, steps=(*DISTILL.steps, Step("route", route, LoopState)))
    nested = replace(LOOP, steps=(*LOOP.steps[:-1], Step("distill", clash, DistillState)))
    with pytest.raises(ValueError, match=re.escape("(shared: ['route'])")):
        inline_subgraphs(nested)


GRAPH_BUILDING = {
    "add_node",
    "add_edge",
    "add_conditional_edges",
    "add_sequence",
    "set_entry_point",
    "set_conditional_entry_point",
    "set_finish_point",
}


def test_the_temporal_package_adds_no_node_or_edge_of_its_own() -> None:
    for path in sorted((ROOT / "critic_loop" / "temporal").rglob("*.py")):
        tree = ast.parse(path.read_text())
        calls = {
            node.func.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        }
        assert not calls & GRAPH_BUILDING, f"{path.name} builds graph structure itself"
        assert "StateGraph(" not in path.read_text(), path.name


MAP_PAGE = ROOT / "docs" / "how-it-works.md"
"""Where the one map of the graph lives."""


def significant_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines() if line.strip()]


def test_the_map_of_the_graph_is_the_compiled_graph_drawn() -> None:
    loop, distill = re.findall(r"```mermaid\n(.*?)```", MAP_PAGE.read_text(), flags=re.DOTALL)
    for block, graph, which in (
        (loop, build_graph(), "first"),
        (distill, build_distill_graph(), "second"),
    ):
        drawn = graph.get_graph(xray=True).draw_mermaid()
        assert significant_lines(block) == significant_lines(drawn), (
            f"the graph changed: replace the {which} mermaid block in docs/{MAP_PAGE.name} "
            f"with\n{drawn}"
        )


def test_no_hand_drawn_copy_of_the_map_is_left() -> None:
    folders = ["critic_loop", "graphs", "nodes", "state", "docs"]
    files = [ROOT / "README.md", *(p for f in folders for p in (ROOT / f).rglob("*.*"))]
    for path in files:
        if path.suffix in {".py", ".md"}:
            assert "-> check_input ->" not in path.read_text(), path
