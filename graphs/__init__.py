"""How the nodes are wired: the app graph (`app`) and the distillation subgraph (`distill`)."""
