"""What flows: the schemas of input, state, per-round records, verdicts, rules and `Context`.

Import from the module that defines a name (`critic_loop.state.loop`,
`critic_loop.state.rubric`, ...). This package imports nothing itself, so reading the
settings (`critic_loop.state.context`) never loads LangGraph.
"""
