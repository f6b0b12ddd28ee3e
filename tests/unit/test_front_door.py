"""One front door for a run: `admit_run` validates the input and settles the context, once.

The command line, `run_loop`, `arun_loop`, `fork_loop` and the server's run admission call
it before the graph runs; the `check_input` node calls it again, inside the graph, as the
guard for input sent straight to the graph.
"""

import asyncio

import pytest
from langgraph.config import get_config
from langgraph_sdk import Auth

from critic_loop import run as run_module
from critic_loop.nodes.loop import admission, check_input
from critic_loop.run import arun_loop, fork_loop, run_loop
from critic_loop.serving import auth
from critic_loop.state.errors import InvalidInput

TASK = "Describe a water bottle."
RUBRIC = [{"id": "short", "kind": "word_count", "max": 20}]
CONTEXT = {
    "worker_model": "scripted:worker",
    "critic_model": "scripted:critic",
    "memory": False,
    "candidates": 1,
}


def in_a_graph() -> bool:
    try:
        get_config()
    except RuntimeError:
        return False
    return True


@pytest.fixture
def admissions(monkeypatch) -> list[bool]:
    """Each call of `admit_run`: True when a graph's step made it (the guard)."""
    calls: list[bool] = []
    admit = admission.admit_run

    def counted(*args, **kwargs):
        calls.append(in_a_graph())
        return admit(*args, **kwargs)

    for module in (admission, check_input, run_module):
        monkeypatch.setattr(module, "admit_run", counted)
    return calls


def test_run_loop_and_arun_loop_admit_a_run_once_before_the_graph(
    models, admissions, tmp_path
) -> None:
    models.script("worker", "A steel bottle.", "A steel bottle.")
    database = tmp_path / "runs.sqlite"
    done = run_loop(TASK, RUBRIC, context=CONTEXT, database=database)
    assert done.outcome == "passed" and admissions == [False, True]
    admissions.clear()
    done = asyncio.run(arun_loop(TASK, RUBRIC, context=CONTEXT, database=database))
    assert done.outcome == "passed" and admissions == [False, True]


def test_a_fork_settles_its_context_at_the_front_door(models, admissions, tmp_path) -> None:
    models.script("worker", "A steel bottle that is far too long for twenty words " * 3, "Short.")
    database = tmp_path / "runs.sqlite"
    failed = run_loop(TASK, RUBRIC, context={**CONTEXT, "max_iterations": 1}, database=database)
    assert failed.outcome == "exhausted"
    thread = failed.thread_id
    admissions.clear()
    forked = fork_loop(thread, 1, context={**CONTEXT, "max_iterations": 2}, database=database)
    assert forked.outcome == "passed" and admissions == [False]


def test_the_command_line_admits_a_run_once_with_its_own_labels(
    run_cli, models, admissions
) -> None:
    models.script("worker", "A steel bottle.")
    models_flags = ["--worker-model", "scripted:worker", "--critic-model", "scripted:critic"]
    common = ["run", "--task", TASK, *models_flags, "--no-memory", "--db", "runs.sqlite"]
    done = run_cli(*common, "--check", "short=word_count:max=20")
    assert done.returncode == 0, done.stderr
    assert admissions == [False, True]
    admissions.clear()
    refused = run_cli(*common, "--check", "short=word_count:max=-1")
    assert refused.returncode == 2 and "--check #1 ('short')" in refused.stderr
    assert admissions == [False]


def test_an_invalid_input_is_refused_before_its_context_is_made() -> None:
    made: list[str] = []

    def context():
        made.append("the embedded model server started")
        raise AssertionError("no context for invalid input")

    with pytest.raises(InvalidInput, match="the task is empty"):
        admission.admit_run({"task": " ", "rubric": RUBRIC}, context)
    assert made == []


@pytest.mark.parametrize(
    ("payload", "status", "said"),
    [
        ({"input": {"task": "", "rubric": RUBRIC}}, 422, "task: the task is empty"),
        ({"input": {"task": TASK, "rubric": [{"id": "x", "kind": "nope"}]}}, 422, "'nope'"),
        ({"context": {"base_url": "http://attacker.example/v1"}}, 403, "is not allowed"),
        ({"context": {"candidates": "many"}}, 422, "the run's context: candidates"),
    ],
)
def test_the_server_refuses_a_run_at_its_front_door(payload, status, said) -> None:
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        auth._admit(payload)
    assert refused.value.status_code == status and said in str(refused.value.detail)


def test_the_server_admits_a_good_run_and_a_resume_without_asking_a_model() -> None:
    auth._admit({"input": {"task": TASK, "rubric": RUBRIC}, "context": {"memory": False}})
    auth._admit({"input": None, "command": {"resume": {"action": "accept"}}})
