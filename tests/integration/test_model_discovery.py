"""With only `OPENAI_BASE_URL` set, every entry point sends the model that server serves.

The scripted server lists one model, `scripted`; its log of requests says which model
each call named. Python's `build_graph(...).invoke`, `run_loop`, `arun_loop` and the
command line are checked here; the served graph's default assistant in test_dev_server.
"""

import json
import os
import time

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from critic_loop import arun_loop, build_graph, run_loop
from critic_loop.nodes.models import discovery
from critic_loop.serving.assistants import PRESETS
from critic_loop.state.context import Context
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.verdicts import QUOTE, graded

pytestmark = pytest.mark.integration

CRITERIA = [{"id": "c", "text": "It names a colour."}]
TASK = "Name a colour."
MET = {"quote": QUOTE, "verdict": "met", "hint": ""}
"""The judge's answer for the one criterion: a served model is judged one criterion per
call (the local settings), and this stands for the words it copies."""


def passing_script() -> RoleScript:
    return RoleScript(worker=["Blue."], critic=[MET])


@pytest.fixture
def only_a_server(monkeypatch):
    """Yield a scripted server named by OPENAI_BASE_URL, and no key or model settings."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "GOOGLE_", "GEMINI_")):
            monkeypatch.delenv(name)
    with ScriptedOpenAIServer(passing_script()) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


def models_sent(server: ScriptedOpenAIServer) -> set[str]:
    return {request["model"] for request in server.requests}


def test_build_graph_invoke_sends_the_served_model(only_a_server) -> None:
    graph = build_graph()
    out = graph.invoke({"task": TASK, "rubric": CRITERIA}, context={"memory": False})
    assert out["outcome"] == "passed"
    assert models_sent(only_a_server) == {"scripted"}
    assert only_a_server.plain_requests()[0]["max_tokens"] == 1024  # the local settings


async def test_graph_ainvoke_asks_off_the_event_loop_and_sends_the_served_model(
    only_a_server,
) -> None:
    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "discovery-async"}}
    out = await graph.ainvoke({"task": TASK, "rubric": CRITERIA}, config)
    assert out["outcome"] == "passed"
    assert models_sent(only_a_server) == {"scripted"}


def test_run_loop_sends_the_served_model(only_a_server, tmp_path) -> None:
    result = run_loop(TASK, CRITERIA, context={"memory": False}, database=tmp_path / "r.sqlite")
    assert result.outcome == "passed"
    assert models_sent(only_a_server) == {"scripted"}


async def test_arun_loop_sends_the_served_model(only_a_server, tmp_path) -> None:
    result = await arun_loop(
        TASK, CRITERIA, context={"memory": False}, database=tmp_path / "r.sqlite"
    )
    assert result.outcome == "passed"
    assert models_sent(only_a_server) == {"scripted"}


def test_the_command_line_sends_the_served_model(only_a_server, run_cli) -> None:
    done = run_cli(
        "run",
        "--task",
        TASK,
        "--criterion",
        "c=It names a colour.",
        "--no-memory",
        env={"OPENAI_BASE_URL": only_a_server.base_url},
    )
    assert done.returncode == 0, done.stderr
    assert models_sent(only_a_server) == {"scripted"}


def test_a_server_is_asked_once_for_many_runs_and_again_when_its_answer_is_old(
    only_a_server, monkeypatch
) -> None:
    graph = build_graph()
    for _ in range(3):
        only_a_server.responder.worker[:] = ["Blue."]
        only_a_server.responder.critic[:] = [MET]
        graph.invoke({"task": TASK, "rubric": CRITERIA}, context={"memory": False})
    assert only_a_server.model_listings == 1
    monkeypatch.setattr(discovery, "DISCOVERY_TTL", 0.0)
    only_a_server.responder.worker[:] = ["Blue."]
    only_a_server.responder.critic[:] = [MET]
    graph.invoke({"task": TASK, "rubric": CRITERIA}, context={"memory": False})
    assert only_a_server.model_listings >= 2


def test_a_named_model_is_sent_as_named_and_the_server_is_not_asked(only_a_server) -> None:
    only_a_server.responder.critic[:] = [graded(CRITERIA)]  # the defaults: one verdict
    graph = build_graph()
    out = graph.invoke(
        {"task": TASK, "rubric": CRITERIA},
        context={"memory": False, "worker_model": "openai:mine", "critic_model": "openai:mine"},
    )
    assert out["outcome"] == "passed"
    assert models_sent(only_a_server) == {"mine"}
    assert only_a_server.model_listings == 0


def test_critic_loop_models_shows_the_same_settings_named_or_discovered(run_cli) -> None:
    with ScriptedOpenAIServer([], model_id="qwen2.5-coder-0.5b-instruct") as server:
        env = {"OPENAI_BASE_URL": server.base_url}
        found = run_cli("models", "--json", env=env)
        model = "openai:qwen2.5-coder-0.5b-instruct"
        named = run_cli("models", "--json", "--model", model, env=env)
        shown = run_cli("models", "--model", model, env=env).stdout
    assert found.returncode == named.returncode == 0
    found_report, named_report = json.loads(found.stdout), json.loads(named.stdout)
    assert found_report["settings"] == named_report["settings"]
    assert found_report["models"]["critic"] == {
        "model": model,
        "found": True,
        "profile": "small model",
    }
    assert named_report["models"]["critic"]["found"] is False
    assert named_report["settings"]["judge_mode"] == {
        "value": "extract_ask",
        "from": "the critic's profile (small model)",
    }
    assert found_report["judge_profile"] == named_report["judge_profile"]
    assert named_report["judge_profile"]["path"].endswith("qwen2.5-coder-0.5b-instruct.json")
    assert "judge_mode" in shown
    assert "from the critic's profile (small model)" in shown
    assert "judge profile: " in shown
    assert "threshold 0.67 on P(met), a quotation of the draft worth 0.20" in shown


def test_critic_loop_models_shows_the_operators_judge_profile_for_its_model(
    run_cli, tmp_path
) -> None:
    from critic_loop.nodes.verifiers import judge_profile as profiles
    from critic_loop.nodes.verifiers.judge_profile import JudgeProfile, load_profile, save_profile
    from critic_loop.state.operator_settings import operator_settings

    path = tmp_path / "judge.json"
    save_profile(JudgeProfile(model="openai:mine-1b", threshold=0.41, labels=147), path)
    operator_settings.cache_clear()
    try:
        with ScriptedOpenAIServer([], model_id="mine-1b") as server:
            env = {"OPENAI_BASE_URL": server.base_url, "CRITIC_LOOP_JUDGE_PROFILE": str(path)}
            used = run_cli("models", "--json", env=env)
            other = run_cli("models", "--model", "openai:other-0.5b", env=env).stdout
            path.write_text("{}")
            load_profile.cache_clear()
            profiles._operators.cache_clear()  # the file is read once per process
            broken = run_cli("models", env=env)
    finally:
        operator_settings.cache_clear()
    report = json.loads(used.stdout)
    assert report["judge_profile"]["path"] == str(path)
    assert report["judge_profile"]["threshold"] == 0.41
    assert report["settings"]["judge_mode"]["value"] == "extract_ask"  # it follows the profile
    assert "judge profile: none for the critic model" in other
    assert broken.returncode == 2
    assert "is not a judge profile" in broken.stderr


def test_run_help_says_which_settings_follow_the_model_and_asks_no_server(run_cli) -> None:
    with ScriptedOpenAIServer([], model_id="qwen2.5-coder-0.5b-instruct") as server:
        started = time.monotonic()
        helped = run_cli("run", "--help", env={"OPENAI_BASE_URL": server.base_url})
        took = time.monotonic() - started
    shown = " ".join(helped.stdout.split()).replace("critic- loop", "critic-loop")
    assert server.model_listings == 0 and took < 2
    for flag, follows in [
        ("--worker-model", "the configured server or API key"),
        ("--critic-model", "the configured server or API key"),
        ("--judge-mode", "the critic model"),
        ("--judge-granularity", "the critic model"),
        ("--no-lint-checks", "the critic model"),
        ("--worker-max-tokens", "the worker model"),
    ]:
        help_of_flag = shown.split(f" {flag} ", 1)[1].split(" --", 1)[0]
        assert f"[default: follows {follows} (critic-loop models shows it), else" in help_of_flag
    assert "[default: verdict" not in shown and "[default: rubric" not in shown
    assert "[default: openai:gpt-4.1" not in shown


def test_models_answers_at_once_from_what_another_process_asked_a_busy_server(run_cli) -> None:
    with ScriptedOpenAIServer([], model_id="qwen2.5-coder-0.5b-instruct") as server:
        server.models_delay = 3.0  # llama-cpp-python: after the generation it is busy with
        env = {"OPENAI_BASE_URL": server.base_url}
        first = run_cli("models", env=env)
        discovery._answers.clear()  # a new process: nothing in memory
        started = time.monotonic()
        second = run_cli("models", env=env)
        took = time.monotonic() - started
    assert first.returncode == second.returncode == 0
    assert second.stdout == first.stdout and "qwen2.5-coder-0.5b-instruct" in second.stdout
    assert server.model_listings == 1 and took < 1


@pytest.mark.parametrize("model_id", ["qwen2.5-coder-0.5b-instruct", "scripted", "llama-3.1-70b"])
def test_the_served_local_assistant_runs_with_what_the_command_line_runs(run_cli, model_id) -> None:
    with ScriptedOpenAIServer([], model_id=model_id) as server:
        env = {"OPENAI_BASE_URL": server.base_url}
        shown = json.loads(run_cli("models", "--json", env=env).stdout)
        assistant = Context(**PRESETS["local"].settings(env))
    models = {f"{role}_model": found["model"] for role, found in shown["models"].items()}
    settings = {field: setting["value"] for field, setting in shown["settings"].items()}
    assert {field: getattr(assistant, field) for field in models} == models
    assert {field: getattr(assistant, field) for field in settings} == settings
