"""Read a compiled graph's shape."""

from typing import Any


def edges_of(graph: Any) -> set[tuple[str, str, bool]]:
    """A compiled graph's drawn edges: (source, target, conditional)."""
    return {(e.source, e.target, e.conditional) for e in graph.get_graph().edges}
