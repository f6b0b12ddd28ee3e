"""The graph is wired once, with StateGraph's own calls, in `loop_builder`.

LangGraph reads each node's view and destinations from the node's own annotations, and
every engine builds from the same builder (the Temporal graph: tests/unit/test_temporal_graph.py).
"""

import ast
import re
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START
from langgraph.runtime import Runtime
from langgraph.types import Command

from critic_loop.graphs.app import build_graph, loop_builder
from critic_loop.graphs.distill import build_distill_graph
from critic_loop.nodes.node import PolicedNode
from critic_loop.state.context import Context
from critic_loop.state.loop import CriticView
from tests.support.graph_shapes import edges_of
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded

ROOT = Path(__file__).resolve().parents[2]


def test_the_distill_step_keeps_no_checkpoints_of_its_own() -> None:
    graph = build_graph()
    assert set(graph.get_graph().nodes) == {START, END} | set(loop_builder().nodes)
    # its checkpoints would store the run's history twice more, so LangGraph does not count
    # it among the subgraphs
    assert list(graph.get_subgraphs()) == []


def test_langgraph_reads_each_nodes_view_and_destinations_from_its_annotations() -> None:
    for builder in (loop_builder(), build_distill_graph().builder):
        for name, spec in builder.nodes.items():
            node = spec.runnable
            assert isinstance(node, PolicedNode), name  # every node is behind the operator's policy
            hints = get_type_hints(node.func)
            assert spec.input_schema is node.schema is hints[next(iter(hints))], name
            returned = hints["return"]
            if get_origin(returned) is Command:
                (targets,) = get_args(returned)
                assert get_origin(targets) is Literal
                assert set(spec.ends) == set(get_args(targets)), name
            else:
                assert not spec.ends, name


def test_a_node_added_after_the_critique_runs_in_process(models, context, loop_input) -> None:
    audited: list[int] = []

    def audit(view: CriticView, runtime: Runtime[Context]) -> dict[str, Any]:
        audited.append(len(view.critiques))
        return {}

    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler words"}), graded(RUBRIC))
    graph = build_graph(post_critique_hook=audit)
    out = graph.invoke(loop_input, context=context.model_copy(update={"memory": False}))
    assert out["outcome"] == "passed"
    assert audited == [1, 2]  # once per round, after the critique
    edges = edges_of(graph)
    assert {
        ("critique", "post_critique_hook", False),
        ("post_critique_hook", "route", True),
        ("post_critique_hook", "generate", True),
    } <= edges
    assert ("critique", "route", True) not in edges
    assert {("critique", "route", True), ("critique", "generate", True)} <= edges_of(build_graph())


def steps_taken(graph: Any, config: dict[str, Any]) -> list[str]:
    history = reversed(list(graph.get_state_history(config)))
    return [task.name for snapshot in history for task in snapshot.tasks]


def test_a_round_that_goes_on_is_two_steps_and_a_reviewed_one_three(
    models, context, loop_input
) -> None:
    models.script("worker", "draft 1", "draft 2", "draft 3")
    models.script(
        "critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"length": "y"}), graded(RUBRIC)
    )
    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "unreviewed"}}
    settings = {"memory": False, "stall_rounds": 10}
    out = graph.invoke(loop_input, config, context=context.model_copy(update=settings))
    assert out["outcome"] == "passed"
    rounds = ["generate", "critique"] * 3
    assert steps_taken(graph, config) == [
        START,
        "check_input",
        "recall",
        *rounds,
        "route",
        "finalize",
    ]

    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC))
    config = {"configurable": {"thread_id": "reviewed"}}
    reviewed = context.model_copy(update={**settings, "review": "every_round"})
    graph.invoke(loop_input, config, context=reviewed)
    graph.invoke(Command(resume={"action": "reject", "feedback": "x"}), config, context=reviewed)
    assert graph.get_state(config).next == ("route",)  # round 2 waits for its review
    rounds = ["generate", "critique", "route"] * 2
    assert steps_taken(graph, config) == [START, "check_input", "recall", *rounds]


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
    """It places the builder's nodes (its `add_node` passes each on); it wires none itself."""
    for path in sorted((ROOT / "critic_loop" / "temporal").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr in GRAPH_BUILDING:
                owner = node.func.value
                passed_on = isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "super"
                assert passed_on, f"{path.name} builds graph structure itself"
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
