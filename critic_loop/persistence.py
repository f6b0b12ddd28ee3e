"""Where the command line and Python helpers keep their data by default: one SQLite file."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

DATA_DIR_VARIABLE = "CRITIC_LOOP_DATA_DIR"
"""Environment variable naming the data directory (default: ./.critic_loop)."""


def data_dir() -> Path:
    """Return the project data directory."""
    return Path(os.environ.get(DATA_DIR_VARIABLE) or ".critic_loop")


def default_database() -> Path:
    """Return the SQLite file that holds checkpoints when no other is named."""
    return data_dir() / "critic_loop.sqlite"


@contextmanager
def sqlite_checkpointer(path: Path | None = None) -> Iterator[SqliteSaver]:
    """Open (creating if needed) a SQLite checkpointer at `path` or the default file."""
    database = path or default_database()
    database.parent.mkdir(parents=True, exist_ok=True)
    with SqliteSaver.from_conn_string(str(database)) as saver:
        yield saver
