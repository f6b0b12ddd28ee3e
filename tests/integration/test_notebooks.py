"""Every notebook runs top to bottom (models served by the scripted HTTP server)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.support.openai_server import FailFirstCritic, ScriptedOpenAIServer

pytestmark = pytest.mark.integration

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, monkeypatch) -> None:
    with ScriptedOpenAIServer(FailFirstCritic(failures=1)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("CRITIC_LOOP_WORKER_MODEL", "openai:stub-worker")
        monkeypatch.setenv("CRITIC_LOOP_CRITIC_MODEL", "openai:stub-critic")
        notebook = nbformat.read(path, as_version=4)
        NotebookClient(
            notebook,
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()
        assert server.requests, "the notebook made no model call"
    outputs = "".join(
        output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", [])
    )
    assert "outcome: passed after 2 round(s)" in outputs
