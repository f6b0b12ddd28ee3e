"""Every ```python block of README.md and of the docs pages runs as written, on its own.

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

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
SNIPPETS = [(page, snippet) for page in PAGES for snippet in python_snippets(page)]


def snippet_id(item: tuple[Path, Snippet]) -> str:
    """Name a snippet by its page and its heading, e.g. `memory/distilling-on-demand-1`."""
    page, snippet = item
    return f"{page.stem}/{snippet.name}"


def test_the_readme_has_python_snippets_and_every_marker_gives_a_reason() -> None:
    assert python_snippets(README), "no ```python block found in README.md"
    for page, snippet in SNIPPETS:
        if snippet.marker is not None:
            assert snippet.not_run_reason, f"{page.name} line {snippet.line}: no reason"


def test_the_pages_that_took_the_readmes_examples_still_run_them() -> None:
    run = [page.stem for page, snippet in SNIPPETS if snippet.marker is None]
    counts = {stem: run.count(stem) for stem in set(run)}
    expected = {"README": 1, "python-api": 2, "review": 1, "memory": 1, "persistence": 1}
    missing = {stem: n for stem, n in expected.items() if counts.get(stem, 0) < n}
    assert not missing, f"fewer runnable examples than before the move: {missing}"


@pytest.mark.parametrize("item", SNIPPETS, ids=snippet_id)
def test_snippet_runs_as_written(
    item: tuple[Path, Snippet], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    page, snippet = item
    reason = snippet.not_run_reason
    if reason is not None:
        pytest.skip(f"{page.name} line {snippet.line} is marked not-run: {reason}")
    monkeypatch.chdir(tmp_path)
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    caplog.set_level(logging.WARNING)
    with ScriptedOpenAIServer(DiligentModel()) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")
        monkeypatch.setenv("CRITIC_LOOP_WORKER_MODEL", "openai:stub-worker")
        monkeypatch.setenv("CRITIC_LOOP_CRITIC_MODEL", "openai:stub-critic")
        # compiled at its own lines of the page, so a traceback quotes the page
        code = compile("\n" * snippet.line + snippet.code, str(page), "exec")
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
