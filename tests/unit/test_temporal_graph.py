"""The Temporal worker's graph is built from the app's declaration, a change to it included."""

import os
from typing import Any

import pytest
from langgraph.graph import END

from critic_loop.graphs.app import LOOP, build_graph
from critic_loop.graphs.temporal_differences import for_temporal
from critic_loop.state.context import Context
from critic_loop.state.loop import CriticView
from tests.support.graph_shapes import declared_edges, edges_of, with_audit

try:
    from temporalio.langgraph import LangGraphPlugin

    from critic_loop.temporal.graph import GRAPH_NAME, build_temporal_graph
    from critic_loop.temporal.settings import TemporalSettings, activity_options, node_budgets
except ImportError:  # pragma: no cover - depends on the installed extras
    if os.environ.get("CRITIC_LOOP_REQUIRE_TEMPORAL"):
        raise
    pytest.skip(
        "the temporal extra is not installed: pip install -e '.[temporal]'",
        allow_module_level=True,
    )

OPTIONS = activity_options(Context(), TemporalSettings())


def activities_of(graph: Any) -> set[str]:
    """The activity types the plugin registers for `graph`'s steps."""
    plugin = LangGraphPlugin(graphs={GRAPH_NAME: graph})
    return {a.__temporal_activity_definition.name for a in plugin.activities}


def test_the_temporal_graph_is_the_declaration_with_its_declared_differences() -> None:
    graph = build_temporal_graph(OPTIONS)
    temporal = for_temporal(LOOP)
    assert list(graph.nodes) == [step.name for step in temporal.steps]
    assert edges_of(graph.compile()) == declared_edges(temporal)
    activity_steps = {step.name for step in temporal.steps if not step.decision}
    assert activities_of(graph) == {f"{GRAPH_NAME}.{name}" for name in activity_steps}


def test_every_activity_step_has_a_time_budget() -> None:
    activity_steps = {step.name for step in for_temporal(LOOP).steps if not step.decision}
    assert set(node_budgets(Context(), TemporalSettings())) == activity_steps


def test_an_activity_step_without_options_is_refused_by_name() -> None:
    options = {name: value for name, value in OPTIONS.items() if name != "critique"}
    with pytest.raises(KeyError, match="no activity options for step 'critique'"):
        build_temporal_graph(options)


def test_a_step_added_to_the_declaration_shows_in_both_engines() -> None:
    def audit(view: CriticView) -> dict[str, Any]:
        return {}

    changed = with_audit(LOOP, audit)
    added = {("critique", "audit", False), ("audit", "route", False)}
    in_process = edges_of(build_graph(declaration=changed))
    assert added <= in_process and ("critique", "route", False) not in in_process

    options = {**OPTIONS, "audit": OPTIONS["critique"]}
    graph = build_temporal_graph(options, declaration=changed)
    assert "audit" in graph.nodes
    assert graph.nodes["audit"].metadata["execute_in"] == "activity"
    on_temporal = edges_of(graph.compile())
    assert added <= on_temporal and ("critique", "route", False) not in on_temporal
    assert ("consolidate_rules", END, False) in on_temporal  # and distill is still inlined
    assert f"{GRAPH_NAME}.audit" in activities_of(graph)
