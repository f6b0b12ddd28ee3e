"""How the nodes are wired: `app.loop_builder` (the app graph) and `distill` (its subgraph)."""
