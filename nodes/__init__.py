"""What happens to the state: the graph's node functions and what they need, by concern.

- `loop/`: the refinement loop's steps (check_input, generate, critique, route, finalize).
- `verifiers/`: the critic's verifiers: deterministic checks and the LLM judge.
- `memory/`: long-term memory: recall, rule usage, distillation, the rule store.
- `models/`: model plumbing: loading "provider:model" chat models, discovery, and the
  gateway every model call goes through (budgets, usage, retries, structured output).
- `prompts/`: the Jinja prompt templates and their renderer.
- `node.py`, `operator_policy.py`: every node runs behind the operator's policy.
- `events.py`: the progress events a run streams.
"""
