"""The loop as a graph for Temporal, built from the app's one declaration (`LOOP`).

`critic_loop.graphs.temporal_differences` declares how it differs from the in-process
graph (distill's steps inlined, decisions in the workflow, ...). Here each step that
runs as an activity gets its activity body (`critic_loop.temporal.activities`) and the
worker's activity options (`settings.activity_options`); nothing else is added.

The plugin changes the graph it is given (it swaps node functions and strips the options
from their metadata), so every plugin needs a graph of its own: call
`build_temporal_graph` for each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from langgraph.graph import StateGraph

from critic_loop.graphs.app import LOOP
from critic_loop.graphs.declaration import GraphDeclaration, Step, build_state_graph
from critic_loop.graphs.temporal_differences import for_temporal
from critic_loop.temporal.activities import activity_body

GRAPH_NAME = "critic_loop"
"""The graph's name with the plugin; its activities are named `critic_loop.<node>`."""


def as_activity(step: Step, options: Mapping[str, Mapping[str, Any]]) -> Step:
    """Return activity step `step` with its activity body and its activity `options`.

    Raises:
        KeyError: `options` has none for it.
    """
    if step.name not in options:
        raise KeyError(f"no activity options for step {step.name!r} (see node_budgets)")
    metadata = {**step.metadata, **options[step.name]}
    return replace(step, node=activity_body(step), metadata=metadata)


def build_temporal_graph(
    options: Mapping[str, Mapping[str, Any]], declaration: GraphDeclaration = LOOP
) -> StateGraph[Any, Any, Any, Any]:
    """Build a fresh graph from `declaration`, each activity with its `options` (by step)."""
    temporal = for_temporal(declaration)
    steps = tuple(step if step.decision else as_activity(step, options) for step in temporal.steps)
    return build_state_graph(replace(temporal, steps=steps))
