"""What the LangGraph server serves: the graphs (`graphs`), the MCP endpoint, the assistants."""
