"""A database of a few finished (and one unfinished) runs, and a way to drive the CLI on it.

The runs are made with `run_loop` and scripted models registered under a provider of
their own, "history:", so the `models` fixture other tests use is left alone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from critic_loop import run_loop
from critic_loop.cli import main
from critic_loop.nodes.models.provider_registry import (
    register_chat_model_provider,
    unregister_chat_model_provider,
)
from critic_loop.state.context import Context
from tests.support.rubrics import RUBRIC, TASK
from tests.support.scripted_model import ScriptedChatModel
from tests.support.verdicts import graded

TONE = {"tone": "Define every term you use."}
EXAMPLE = {"example": "Add an example."}
RULE = "Always define every term you use."
OTHER_RULE = "Define each term you use, always."
THREADS = ["t-pass", "t-exhausted", "t-candidates", "t-recall", "t-unfinished"]
"""The threads `make_history` writes, oldest first."""


def add_rule(text: str, *criteria: str) -> dict[str, Any]:
    """A distiller's answer adding one rule."""
    operation = {"action": "add", "rule_id": "", "text": text, "criteria": list(criteria)}
    return {"operations": [{**operation, "reason": "r"}]}


def history_context(**overrides: Any) -> Context:
    settings = {
        "worker_model": "history:worker",
        "critic_model": "history:critic",
        "distill_model": "history:distill",
    }
    return Context(**{**settings, **overrides})


def make_history(db: str, tag: str = "") -> list[str]:
    """Write five runs into `db` (oldest first); return their thread ids.

    - t-pass: tone fails in round 1, passes in round 2 (after its hint); distills RULE into
      scope default;
    - t-exhausted: scope "other", fails twice at a cap of 2, tone and example in round 1,
      example again in round 2 (tone passes after its hint); distills OTHER_RULE there;
    - t-candidates: two candidates in round 1, the second passes; memory off;
    - t-recall: is given RULE from scope default and passes in round 1;
    - t-unfinished: the critic fails mid-run, so the run never ends.

    A `tag` is appended to every thread id and scope name (a shared database).
    """
    models: dict[str, ScriptedChatModel] = {}
    register_chat_model_provider("history", lambda model, **settings: models[model])
    main_scope, other_scope = ("default", "other") if not tag else (f"main{tag}", f"other{tag}")

    def script(worker: list[Any], critic: list[Any], distill: list[Any] | None = None) -> None:
        models["worker"] = ScriptedChatModel(replies=worker)
        models["critic"] = ScriptedChatModel(replies=critic)
        models["distill"] = ScriptedChatModel(replies=distill or [])

    def run(thread: str, task: str = TASK, **settings: Any) -> None:
        settings.setdefault("memory_scope", main_scope)
        context = history_context(**settings)
        run_loop(task, RUBRIC, context=context, database=db, thread_id=thread + tag)

    try:
        script(
            ["first try", "second try\nwith a second line"],
            [graded(RUBRIC, TONE), graded(RUBRIC)],
            [add_rule(RULE, "tone")],
        )
        run("t-pass")
        script(
            ["draft one", "draft two"],
            [graded(RUBRIC, {**TONE, **EXAMPLE}), graded(RUBRIC, EXAMPLE)],
            [add_rule(OTHER_RULE, "tone")],
        )
        run("t-exhausted", "Explain what a queue is.", memory_scope=other_scope, max_iterations=2)
        script(["candidate A", "candidate B"], [graded(RUBRIC, TONE), graded(RUBRIC)])
        run("t-candidates", candidates=2, memory=False)
        script(["right away"], [graded(RUBRIC)])  # nothing to learn: no distiller call
        run("t-recall")
        script(["never graded"], [])  # the critic has nothing to say: the run stops
        with pytest.raises(Exception, match="script exhausted"):
            run("t-unfinished")
    finally:
        unregister_chat_model_provider("history")
    return [thread + tag for thread in THREADS]


@dataclass
class Done:
    """What a command printed, and its exit status."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


def cli_runner(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., Done]:
    """Return a function running `critic-loop ARGS` in-process, in `tmp_path`.

    No model or database setting is inherited from the environment.
    """
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "GOOGLE_", "GEMINI_", "CRITIC_LOOP_")):
            monkeypatch.delenv(name)

    def run(*args: str) -> Done:
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        return Done(code, out.out, out.err)

    return run


def one_line_error(done: Done, *expected: str) -> None:
    """Assert a command failed with exit status 2 and one line on stderr naming `expected`."""
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    for text in expected:
        assert text in done.stderr, done.stderr
