"""The installed `critic-loop` command as a real process: fast help, and one whole run."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

CLI = str(Path(sys.executable).with_name("critic-loop"))

HEAVY = ["langgraph", "langchain_core", "langchain_openai", "langchain_google_genai", "openai"]


def clean_environment() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "GOOGLE_", "GEMINI_", "CRITIC_LOOP_"))
    }


@pytest.mark.parametrize(
    ("arguments", "status"),
    [
        (["--help"], 0),
        (["run", "--help"], 0),
        (["--version"], 0),
        (["run", "--task", "x"], 2),  # a mistake in the arguments: the rubric is empty
        (["run", "--input", "missing.json"], 2),
        (["run", "--task", "x", "--check", "x=wordcount"], 2),  # a mistake in the rubric
        (["run", "--task", "x", "--criterion", "a=b", "--max-iterations", "0"], 2),
    ],
)
def test_help_and_argument_mistakes_import_no_graph_and_no_model_library(arguments, status) -> None:
    probe = (
        "import sys\n"
        "from critic_loop.cli import main\n"
        f"status = main({arguments!r})\n"
        f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('LOADED', loaded, 'STATUS', status)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"LOADED [] STATUS {status}"


def test_a_whole_run_as_a_process(tmp_path) -> None:
    (tmp_path / "task.json").write_text(
        json.dumps({"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]})
    )
    script = RoleScript(
        worker=["first try", "second try"],
        critic=[graded(RUBRIC, {"tone": "Use plainer words."}), graded(RUBRIC)],
    )
    with ScriptedOpenAIServer(script) as server:
        done = subprocess.run(
            [
                CLI,
                "run",
                "--input",
                "task.json",
                "--base-url",
                server.base_url,
                "--model",
                "openai:stub",
                "--no-memory",
            ],
            cwd=tmp_path,
            env=clean_environment(),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert "round 2: 3/3 criteria passed, must 3/3, weighted score 1.00" in done.stdout
    assert done.stdout.splitlines()[-1] == "second try"
    assert (tmp_path / ".critic_loop" / "critic_loop.sqlite").exists()
