"""Every ```python block of README.md runs as written, on its own.

Each block runs in a fresh namespace and a fresh working directory, so a block that uses a
name it never defines, or a file another block made, fails here. Models are served by the
scripted HTTP server: the worker drafts, the judge passes what it is sent (quoting it),
and the distiller proposes one rule. A block that truly cannot run offline carries
`<!-- snippet: not-run (reason) -->` directly above its fence.
"""

import logging
from pathlib import Path

import pytest

from tests.support.markdown_snippets import Snippet, python_snippets
from tests.support.openai_server import DiligentModel, ScriptedOpenAIServer

pytestmark = pytest.mark.integration

README = Path(__file__).resolve().parents[2] / "README.md"
SNIPPETS = python_snippets(README)


def test_the_readme_has_python_snippets_and_every_marker_gives_a_reason() -> None:
    assert SNIPPETS, "no ```python block found in README.md"
    for snippet in SNIPPETS:
        if snippet.marker is not None:
            assert snippet.not_run_reason, f"line {snippet.line}: a not-run marker needs a reason"


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.name)
def test_snippet_runs_as_written(
    snippet: Snippet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    reason = snippet.not_run_reason
    if reason is not None:
        pytest.skip(f"README.md line {snippet.line} is marked not-run: {reason}")
    monkeypatch.chdir(tmp_path)
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    caplog.set_level(logging.WARNING)
    with ScriptedOpenAIServer(DiligentModel()) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")
        monkeypatch.setenv("CRITIC_LOOP_WORKER_MODEL", "openai:stub-worker")
        monkeypatch.setenv("CRITIC_LOOP_CRITIC_MODEL", "openai:stub-critic")
        # compiled at its own lines of README.md, so a traceback quotes the README
        code = compile("\n" * snippet.line + snippet.code, str(README), "exec")
        exec(code, {"__name__": "__main__"})  # a fresh namespace for each snippet
    warnings = [f"{r.name}: {r.getMessage()}" for r in caplog.records]
    assert not warnings, "the snippet ran, but logged warnings:\n" + "\n".join(warnings)


def test_a_not_run_marker_must_say_why(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Setup\n\n<!-- snippet: not-run (needs a PostgreSQL server) -->\n```python\nx = 1\n```\n"
        "\n## Later\n<!-- snippet: not-run -->\n```python\ny = 2\n```\n```bash\nls\n```\n"
    )
    marked, bare = python_snippets(page)
    assert (marked.name, marked.code) == ("setup-1", "x = 1\n")
    assert marked.not_run_reason == "needs a PostgreSQL server"
    assert bare.name == "later-1"
    with pytest.raises(ValueError, match="must read '<!-- snippet: not-run"):
        _ = bare.not_run_reason
