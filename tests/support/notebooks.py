"""Run a notebook as a reader would, in a fresh kernel in its own folder, and read its output.

The notebooks are committed with the outputs of a run on a real (local) model. A run of
them in the tests is compared with those outputs for structure, not wording: which code
cells show output and of what kind, and how many runs end with a declared outcome.
"""

from __future__ import annotations

import re
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
    "CRITIC_LOOP_WORKER_MODEL",
    "CRITIC_LOOP_CRITIC_MODEL",
)
"""Variables that configure a model for a notebook (with none, it runs the embedded one)."""

OUTCOME = re.compile(
    r"^outcome: (passed|stalled|exhausted|infeasible|verifier_error|accepted|cancelled) "
    r"after \d+ round\(s\)$",
    re.MULTILINE,
)
"""The line each run of a notebook ends with."""


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


def read(path: Path) -> nbformat.NotebookNode:
    """Read the notebook at `path` as committed."""
    return nbformat.read(path, as_version=4)


def structure(notebook: nbformat.NotebookNode) -> list[tuple[str, ...]]:
    """Return, for each code cell, the kinds of output it shows (a stream's name, or a type).

    Warnings a library logs on stderr are left out: whether a model server needs a
    fallback is the server's, not the notebook's, shape.
    """
    shapes = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        kinds = {
            str(output.get("name") if output["output_type"] == "stream" else output["output_type"])
            for output in cell.get("outputs", [])
        }
        shapes.append(tuple(sorted(kinds - {"stderr"})))
    return shapes


def outcomes(notebook: nbformat.NotebookNode) -> int:
    """Return how many runs the notebook's output shows ending with a declared outcome."""
    return len(OUTCOME.findall(stream_text(notebook)))


def stream_text(notebook: nbformat.NotebookNode, name: str = "stdout") -> str:
    """Everything the notebook's cells wrote to one stream (stdout or stderr)."""
    return "".join(
        output.get("text", "")
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream" and output.get("name") == name
    )


PRINTED_MODELS = re.compile(r"^worker (\S+), critic (\S+)$", re.MULTILINE)
"""The line a notebook's first cell prints: the models its outputs come from."""

STATEMENT = re.compile(r"^\*\*Saved outputs:\*\* worker `([^`]+)`, critic `([^`]+)`, (.+)\.$", re.M)
"""The line of a notebook's "Models" section that says which models made its saved outputs."""

EMBEDDED = "No model configured: the embedded local model answers on 127.0.0.1."
"""What the first cell prints when no model is configured."""


def printed_models(notebook: nbformat.NotebookNode) -> tuple[str, str] | None:
    """Return the (worker, critic) the notebook's outputs show it ran with."""
    found = PRINTED_MODELS.search(stream_text(notebook))
    return (found.group(1), found.group(2)) if found else None


def stated_models(notebook: nbformat.NotebookNode) -> tuple[str, str, str] | None:
    """Return the (worker, critic, where) the notebook's text says its outputs come from."""
    for cell in notebook.cells:
        found = STATEMENT.search(cell.source) if cell.cell_type == "markdown" else None
        if found:
            return found.group(1), found.group(2), found.group(3)
    return None


def state_the_models(notebook: nbformat.NotebookNode) -> None:
    """Write which models produced the notebook's outputs into its statement line."""
    models = printed_models(notebook)
    if models is None:
        raise ValueError("the notebook printed no 'worker ..., critic ...' line")
    where = (
        "the embedded local model"
        if EMBEDDED in stream_text(notebook)
        else ("an OpenAI-compatible server the environment named")
    )
    line = f"**Saved outputs:** worker `{models[0]}`, critic `{models[1]}`, {where}."
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and STATEMENT.search(cell.source):
            cell.source = STATEMENT.sub(line, cell.source)
            return
    raise ValueError("the notebook has no '**Saved outputs:**' line to fill in")


def save_executed(paths: list[Path], timeout: int = 3600) -> None:
    """Run each notebook and save it with its outputs (how the committed outputs are made).

    The models are the environment's, as for a reader: with none configured (`make
    notebooks`), the embedded model (the `local` extra; CRITIC_LOOP_LOCAL_MODEL_FILE names
    a model file already on disk); with `make notebooks BASE_URL=...`, that server's.
    Each notebook's "**Saved outputs:**" line is rewritten to name the models it ran with.
    """
    for path in paths:
        notebook = execute(path, timeout)
        for cell in notebook.cells:
            cell.get("metadata", {}).pop("execution", None)
        state_the_models(notebook)
        nbformat.write(notebook, path)


if __name__ == "__main__":
    import sys

    save_executed([Path(name) for name in sys.argv[1:]] or notebooks())
