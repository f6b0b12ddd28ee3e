"""Graph builders: the refinement loop."""

from graphs.loop import build_graph

__all__ = ["build_graph"]
