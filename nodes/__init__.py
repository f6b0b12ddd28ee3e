"""What happens to the state: the graph's node functions and what they need, by concern.

- `loop/`: the refinement loop's steps (check_input, generate, critique, route, finalize)
  and what only they use (prompt compaction, the critic-to-worker feedback channel).
- `verifiers/`: the critic's verifiers: deterministic checks and the LLM judge.
- `memory/`: long-term memory: recall, rule usage, distillation (propose and consolidate
  rules), the rule store and its lexical index.
- `models/`: model plumbing: loading "provider:model" chat models, the registry of
  providers of one's own, structured output and its fallbacks, token usage.
- `prompts/`: the Jinja prompt templates and their renderer.
- `steps.py`, `events.py`: how a node runs under both `invoke` and `ainvoke`, and the
  progress events it streams.
- `operator_policy.py`: how a node reads its `Context` (`context_of`), held to the
  operator's policy on servers, files and code a client may name.
"""
