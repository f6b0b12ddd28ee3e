"""The effectiveness benchmark's task set: JSONL files and the sources they are built from."""
