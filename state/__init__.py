"""The schemas of what flows; it imports nothing, so reading `Context` loads no LangGraph."""
