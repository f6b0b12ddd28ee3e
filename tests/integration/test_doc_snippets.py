"""Every ```python block of README.md and of the docs pages runs as written, on its own.

Each block runs in a fresh namespace and a fresh working directory, so a block that uses a
name it never defines, or a file another block made, fails here. Models are served by the
scripted HTTP server: the worker drafts, the judge passes what it is sent (quoting it),
and the distiller proposes one rule. A block that truly cannot run offline carries
`<!-- snippet: not-run (reason) -->` directly above its fence.
"""

import json
import logging
import re
from pathlib import Path

import pytest

from tests.support.markdown_snippets import Snippet, python_snippets
from tests.support.openai_server import DiligentModel, RoleScript, ScriptedOpenAIServer
from tests.support.verdicts import graded

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


def shape(line: str) -> str:
    """A printed line with what varies from run to run (ids, models, numbers) made alike."""
    line = re.sub(r"\b[0-9a-f]{32}\b", "THREAD", line)
    line = re.sub(r"openai:[\w.\-]+", "MODEL", line)
    return re.sub(r"\d+(\.\d+)?", "N", line).rstrip()


def transcript(page: Path) -> list[str]:
    """The demo's transcript a page shows (its first ```text block after the heading)."""
    text = page.read_text().split("## What a run looks like", 1)[1]
    block = text.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    return block[: next(i for i, line in enumerate(block) if line.startswith("--- final draft"))]


@pytest.mark.parametrize(
    "page", [README, ROOT / "docs" / "getting-started.md"], ids=["README", "getting-started"]
)
def test_the_demo_transcript_shows_what_the_demo_prints(page: Path, run_cli) -> None:
    with ScriptedOpenAIServer(DiligentModel()) as server:
        done = run_cli("demo", env={"OPENAI_BASE_URL": server.base_url})
    assert done.returncode == 0, done.stderr
    printed = [shape(line) for line in done.stdout.splitlines()]
    shown = [line for line in transcript(page) if line.strip() and not line.startswith("$")]
    position = 0
    for line in shown:  # in order; "[...]" stands for what the page leaves out
        wanted = shape(line.split("[...]")[0])
        found = [
            i for i, real in enumerate(printed[position:], position) if real.startswith(wanted)
        ]
        assert found, f"{page.name} shows a line the demo does not print: {line!r}"
        position = found[0] + 1
    ending = printed[printed.index(next(p for p in printed if p.startswith("outcome:"))) :]
    ending = [line for line in ending[: ending.index("--- final draft (round N) ---")] if line]
    assert [shape(line) for line in shown[-len(ending) :]] == ending  # the result, whole


def test_the_distilling_on_demand_example_learns_a_rule(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """The worker misses the hidden sign-off, the check's hint gets it added: a lesson."""
    [snippet] = [
        s
        for s in python_snippets(ROOT / "docs" / "memory.md")
        if s.name == "distilling-on-demand-1"
    ]
    monkeypatch.chdir(tmp_path)
    add = {
        "action": "add",
        "rule_id": "",
        "text": "End with 'Happy coding!'.",
        "criteria": [],
        "reason": "r",
    }
    script = RoleScript(
        worker=[
            "A hash map finds a value by its key: ages['ada'] gives 36.",
            "A hash map finds a value by its key: ages['ada'] gives 36. Happy coding!",
        ],
        critic=[graded([{"id": "example"}]), {"operations": [add]}],
    )
    with ScriptedOpenAIServer(script) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("CRITIC_LOOP_WORKER_MODEL", "openai:stub-worker")
        monkeypatch.setenv("CRITIC_LOOP_CRITIC_MODEL", "openai:stub-critic")
        exec(compile(snippet.code, "memory.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == "1 rule(s) added to scope 'explainers'\n"
    lesson = json.dumps(server.requests[-1]["messages"])
    assert "Happy coding!" in lesson  # the distiller was given the hint that fixed it


@pytest.mark.parametrize("passes", [True, False], ids=["passes", "fails"])
def test_the_exception_example_prints_its_result_in_every_case(
    passes: bool, tmp_path: Path, monkeypatch, capsys
) -> None:
    [snippet] = [
        s
        for s in python_snippets(ROOT / "docs" / "python-api.md")
        if s.name == "an-exception-instead-of-a-result-1"
    ]
    monkeypatch.chdir(tmp_path)
    verdict = graded([{"id": "example"}], {} if passes else {"example": "Add an example."})
    script = RoleScript(worker=["A hash map: ages['ada'] gives 36."], critic=[verdict])
    with ScriptedOpenAIServer(script) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("CRITIC_LOOP_WORKER_MODEL", "openai:stub-worker")
        monkeypatch.setenv("CRITIC_LOOP_CRITIC_MODEL", "openai:stub-critic")
        context = {"max_iterations": 1, "memory": False}
        code = snippet.code.replace(
            '{"on_exhausted": "raise"}', f"{{**{context}, 'on_exhausted': 'raise'}}"
        )
        exec(compile(code, "python-api.md", "exec"), {"__name__": "__main__"})
    printed = capsys.readouterr().out
    assert printed.startswith("passed A hash map" if passes else "exhausted A hash map"), printed
