"""Run a notebook as a reader would, in a fresh kernel in its own folder, and read its output."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"

MODEL_VARIABLES = (
    "OPENAI_BASE_URL",
    "CRITIC_LOOP_BASE_URL",
    "OPENAI_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
)
"""Variables that configure a real model for a notebook (with none, it uses a stand-in)."""


def notebooks() -> list[Path]:
    """Every notebook of the repository, by name."""
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


def execute(path: Path, timeout: int = 120) -> nbformat.NotebookNode:
    """Run every cell of the notebook at `path` (the kernel inherits this environment).

    Raises:
        nbclient.exceptions.CellExecutionError: a cell raised; the message shows the error.
    """
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return notebook


def stream_text(notebook: nbformat.NotebookNode, name: str = "stdout") -> str:
    """Everything the notebook's cells wrote to one stream (stdout or stderr)."""
    return "".join(
        output.get("text", "")
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream" and output.get("name") == name
    )
