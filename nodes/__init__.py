"""What happens to the state: the graph's node functions, by concern (see docs/layout.md).

`loop/` the loop's steps, `verifiers/` the critic's checks and judge, `memory/` long-term
memory, `models/` model loading and the gateway every call goes through, `prompts/` the
templates; every node runs behind the operator's policy (`node.py`, `operator_policy.py`).
"""
