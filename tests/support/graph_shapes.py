"""Read a graph's shape: its declared edges, a compiled graph's drawn edges, and a change."""

from dataclasses import replace
from typing import Any

from critic_loop.graphs.declaration import Branch, Edge, GraphDeclaration, Step
from critic_loop.state.loop import CriticView


def edges_of(graph: Any) -> set[tuple[str, str, bool]]:
    """A compiled graph's drawn edges: (source, target, conditional)."""
    return {(e.source, e.target, e.conditional) for e in graph.get_graph().edges}


def declared_edges(declaration: GraphDeclaration) -> set[tuple[str, str, bool]]:
    """The edges a declaration draws: plain edges, branches and `Command` destinations."""
    drawn = set()
    for edge in declaration.edges:
        if isinstance(edge, Branch):
            drawn |= {(edge.source, target, True) for target in edge.destinations}
        else:
            drawn.add((edge.source, edge.target, False))
    for step in declaration.steps:
        drawn |= {(step.name, target, True) for target in step.destinations}
    return drawn


def with_audit(declaration: GraphDeclaration, audit: Any) -> GraphDeclaration:
    """`declaration` with an `audit` step between critique and route (a deliberate change)."""
    edges = [e for e in declaration.edges if e != Edge("critique", "route")]
    return replace(
        declaration,
        steps=(*declaration.steps, Step("audit", audit, CriticView)),
        edges=(*edges, Edge("critique", "audit"), Edge("audit", "route")),
    )
