"""What the LangGraph server mounts beside the graphs: the MCP endpoint, ready-made assistants."""
