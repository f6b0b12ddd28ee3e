"""Resuming and forking a thread from the command line, with the thread's own settings.

`critic-loop run --thread-id T` alone resumes T with the task, rubric, models and
settings it ran with (kept in its checkpoints' metadata); changing a model needs
`--switch-models`; `critic-loop fork T --round N` continues it from an earlier round. A
thread a served client started keeps its settings a client's: a resume holds them to
the operator's policy, as the server did.
"""

import json

import pytest

from critic_loop.persistence import open_persistence
from tests.support.openai_server import Failure, RoleScript, ScriptedOpenAIServer
from tests.support.rubrics import TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

CRITERIA = [{"id": "c", "text": "x y z"}]


def models_of(server: ScriptedOpenAIServer) -> list[str]:
    return [request["model"] for request in server.requests]


def start_and_stop(run_cli, server: ScriptedOpenAIServer, thread: str) -> None:
    """Start a run with models of its own and 3 rounds; its critic fails (exit 3)."""
    done = run_cli(
        "run",
        "--task",
        TASK,
        "--criterion",
        "c=x y z",
        "--thread-id",
        thread,
        "--base-url",
        server.base_url,
        "--worker-model",
        "openai:worker",
        "--critic-model",
        "openai:critic",
        "--max-iterations",
        "3",
        "--no-memory",
    )
    assert done.returncode == 3, done.stderr
    assert "resume with:" in done.stderr


def test_thread_id_alone_resumes_with_the_threads_task_rubric_models_and_settings(
    run_cli,
) -> None:
    script = RoleScript(
        worker=["draft one", "draft two"],
        critic=[
            Failure(401, "try again later"),
            graded(CRITERIA, {"c": "More."}),
            graded(CRITERIA),
        ],
    )
    with ScriptedOpenAIServer(script) as server:
        start_and_stop(run_cli, server, "t-resume")
        again = run_cli("run", "--thread-id", "t-resume")
    assert again.returncode == 0, again.stderr
    assert (
        "critic-loop: resuming thread t-resume; worker openai:worker, critic openai:critic, "
        "up to 3 rounds"
    ) in again.stdout
    assert "outcome: passed after 2 round(s)" in again.stdout
    assert models_of(server) == ["worker", "critic", "critic", "worker", "critic"]
    assert "the rubric is empty" not in again.stderr


def test_a_new_model_on_resume_needs_switch_models_and_says_so(run_cli) -> None:
    script = RoleScript(
        worker=["draft one"], critic=[Failure(401, "try again later"), graded(CRITERIA)]
    )
    with ScriptedOpenAIServer(script) as server:
        start_and_stop(run_cli, server, "t-switch")
        refused = run_cli("run", "--thread-id", "t-switch", "--critic-model", "openai:other")
        assert refused.returncode == 2
        assert (
            "thread t-switch ran with critic_model 'openai:critic'; --critic-model "
            "'openai:other' would switch it mid-thread: add --switch-models"
        ) in refused.stderr
        before = len(server.requests)
        switched = run_cli(
            "run", "--thread-id", "t-switch", "--critic-model", "openai:other", "--switch-models"
        )
    assert switched.returncode == 0, switched.stderr
    assert "note: switching models mid-thread: critic_model openai:critic -> openai:other" in (
        switched.stderr
    )
    assert models_of(server)[before:] == ["other"]


def test_a_finished_thread_names_the_fork_command_and_fork_continues_it(run_cli) -> None:
    script = RoleScript(
        worker=["draft one", "draft two", "draft two, forked"],
        critic=[graded(CRITERIA, {"c": "More."}), graded(CRITERIA), graded(CRITERIA)],
    )
    with ScriptedOpenAIServer(script) as server:
        first = run_cli(
            "run",
            "--task",
            TASK,
            "--criterion",
            "c=x y z",
            "--thread-id",
            "t-fork",
            "--base-url",
            server.base_url,
            "--model",
            "openai:stub",
            "--no-memory",
            "--candidates",
            "1",
        )
        assert first.returncode == 0, first.stderr
        again = run_cli("run", "--thread-id", "t-fork")
        assert again.returncode == 2
        assert "critic-loop fork t-fork --round N (N from 1 to 2)" in again.stderr
        too_far = run_cli("fork", "t-fork", "--round", "3")
        assert too_far.returncode == 2
        assert "thread t-fork has 2 graded round(s): --round goes from 1 to 2" in too_far.stderr
        forked = run_cli("fork", "t-fork", "--round", "1", "--critic-model", "openai:stronger")
    assert forked.returncode == 0, forked.stderr
    assert "critic-loop: fork of thread t-fork from round 1; worker openai:stub, critic " in (
        forked.stdout
    )
    assert "critic openai:stronger" in forked.stdout
    assert models_of(server)[-2:] == ["stub", "stronger"]  # round 2 of the fork
    shown = run_cli("show", "t-fork", "--json")
    assert json.loads(shown.stdout)["values"]["outcome"] == "passed"


def served_thread(database: str, thread: str, context: dict, monkeypatch, allowed: dict) -> None:
    """Write a thread as LangGraph server does for a client: stopped before its first draft.

    The server copies the client's context into the run's `configurable` beside its own
    keys, and LangGraph copies those scalars into every checkpoint's metadata. The
    server's operator allowed what the client chose (`allowed`: its environment then).
    """
    from critic_loop import build_graph
    from critic_loop.state.operator_settings import operator_settings

    with monkeypatch.context() as then, open_persistence(database) as persistence:
        for name, value in allowed.items():
            then.setenv(name, value)
        operator_settings.cache_clear()
        graph = build_graph(checkpointer=persistence.checkpointer, store=persistence.store)
        configurable = {"thread_id": thread, "graph_id": "critic_loop", "assistant_id": "a1"}
        graph.invoke(
            {"task": TASK, "rubric": CRITERIA},
            {"configurable": {**configurable, **context}},
            context=context,
            interrupt_before=["generate"],
        )
    operator_settings.cache_clear()


@pytest.mark.parametrize(
    ("chosen", "refusal"),
    [
        ({"base_url": "ATTACKER"}, "base_url 'ATTACKER' is not allowed"),
        (
            {"max_iterations": 50},
            "max_iterations=50 (the most is 20, CRITIC_LOOP_CEILING_MAX_ITERATIONS)",
        ),
    ],
    ids=["base_url", "ceiling"],
)
def test_a_served_clients_settings_stay_a_clients_on_resume(
    tmp_path, run_cli, monkeypatch, chosen, refusal
) -> None:
    with (
        ScriptedOpenAIServer(RoleScript(worker=["a draft"], critic=[graded(CRITERIA)])) as server,
        ScriptedOpenAIServer(RoleScript()) as attacker,
    ):
        chosen = {k: attacker.base_url if v == "ATTACKER" else v for k, v in chosen.items()}
        refusal = refusal.replace("ATTACKER", attacker.base_url)
        database = str(tmp_path / "served.sqlite")
        context = {"worker_model": "openai:stub", "critic_model": "openai:stub", **chosen}
        allowed = {
            "OPENAI_BASE_URL": server.base_url,
            "CRITIC_LOOP_ALLOWED_BASE_URLS": attacker.base_url,
            "CRITIC_LOOP_CEILING_MAX_ITERATIONS": "60",
        }
        served_thread(database, "t-served", {**context, "memory": False}, monkeypatch, allowed)
        operator = {"OPENAI_BASE_URL": server.base_url}
        refused = run_cli("run", "--thread-id", "t-served", "--db", database, env=operator)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "thread t-served's settings were chosen by a client of a server" in refused.stderr
        assert refusal in refused.stderr
        assert attacker.requests == [] and server.requests == []
        # the operator's own flag replaces the client's setting
        replaced = {"base_url": server.base_url, "max_iterations": "3"}
        flags = [f"--{name.replace('_', '-')}={replaced[name]}" for name in chosen]
        resumed = run_cli("run", "--thread-id", "t-served", "--db", database, *flags, env=operator)
    assert resumed.returncode == 0, resumed.stderr
    assert attacker.requests == []
    assert models_of(server) == ["stub", "stub"]
