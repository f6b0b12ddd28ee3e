"""The sources the task files are generated from (`python -m ...sources.build`).

Edit `tasks_*.py` here, never the JSONL files by hand; `taskdef` holds the helpers that
turn a compact declaration into a prompt, visible and hidden test modules, a reference and
a naive solution.
"""
