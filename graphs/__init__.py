"""Graph builders: the refinement loop."""

from graphs.app import build_graph

__all__ = ["build_graph"]
