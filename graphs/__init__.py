"""How the nodes are wired, declared once: the app graph and the distillation subgraph.

`app.LOOP` and `distill.DISTILL` declare them, `declaration.build_state_graph` builds
them, and `temporal_differences` declares how the Temporal graph differs from them.
"""
