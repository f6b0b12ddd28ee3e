"""Run the `critic-loop` command in-process, as the command-line tests do."""

import os
from dataclasses import dataclass

import pytest

from critic_loop.cli import main
from tests.support.openai_server import ScriptedOpenAIServer


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(tmp_path, monkeypatch, capsys):
    """Run `critic-loop ARGS` in-process, in `tmp_path`, with no model settings inherited."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "GOOGLE_", "GEMINI_", "CRITIC_LOOP_")):
            monkeypatch.delenv(name)

    def run(*args: str, env: dict[str, str] | None = None) -> Done:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        for name in env or {}:
            monkeypatch.delenv(name)
        return Done(code, out.out, out.err)

    return run


def model_args(server: ScriptedOpenAIServer) -> list[str]:
    return [
        "--base-url",
        server.base_url,
        "--worker-model",
        "openai:stub-worker",
        "--critic-model",
        "openai:stub-critic",
    ]
