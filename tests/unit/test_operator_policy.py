"""Served runs: clients cannot choose servers, files or code; the operator can."""

import os

import pytest
from jinja2.exceptions import SecurityError

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.operator_policy import (
    OPERATOR,
    Trust,
    check_context,
    check_rubric,
    resolve_check,
    with_tests_inline,
)
from critic_loop.nodes.prompts import render_prompt
from critic_loop.state.context import Context
from critic_loop.state.errors import TrustViolation
from critic_loop.state.operator_settings import OperatorSettings, operator_settings
from critic_loop.state.references import register_check
from critic_loop.state.rubric import PythonCheck, TestSuite
from tests.support.contexts import scripted_context
from tests.support.rubrics import TASK

DANGEROUS = [
    "os:system",
    "subprocess:call",
    "builtins:eval",
    "builtins:exec",
    "os:remove",
    "sys:exit",
]


def served(**settings: object) -> Trust:
    return Trust(served=True, settings=OperatorSettings(**settings))


def word_check(draft: str) -> bool:
    return len(draft.split()) < 100


@pytest.mark.parametrize("reference", DANGEROUS)
def test_a_client_cannot_name_an_arbitrary_function(reference) -> None:
    criterion = PythonCheck(id="c", kind="python", function=reference)
    with pytest.raises(TrustViolation, match="not allowed"):
        check_rubric([criterion], served())


def test_a_client_may_name_a_registered_function_or_an_allowed_module() -> None:
    reference = register_check(word_check)
    assert resolve_check(reference, served()) is word_check
    assert resolve_check("json:dumps", served(python_check_modules=["json"])).__name__ == "dumps"


def test_the_operator_may_name_any_importable_function() -> None:
    assert resolve_check("json:dumps", OPERATOR).__name__ == "dumps"


def test_a_client_cannot_choose_the_model_server(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    trust = served(allowed_base_urls=["http://10.0.0.5:8000/v1"])
    with pytest.raises(TrustViolation, match="base_url 'http://attacker.example/v1'"):
        check_context(Context(base_url="http://attacker.example/v1"), trust)
    for allowed in ["http://127.0.0.1:8080/v1/", "http://10.0.0.5:8000/v1"]:
        assert check_context(Context(base_url=allowed), trust).base_url == allowed
    assert check_context(Context(base_url="http://anywhere/v1"), OPERATOR)


@pytest.mark.parametrize("path", ["/etc/shadow", "/proc/self/environ", "../../etc/passwd"])
def test_a_client_cannot_read_files_outside_the_allowed_directories(tmp_path, path) -> None:
    criterion = TestSuite(id="t", kind="tests", tests_file=path)
    with pytest.raises(TrustViolation, match="CRITIC_LOOP_ALLOWED_PATHS"):
        with_tests_inline(criterion, served(allowed_paths=[str(tmp_path)]))


def test_a_link_out_of_an_allowed_directory_is_refused(tmp_path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "test_escape.py").symlink_to("/etc/passwd")
    (allowed / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    trust = served(allowed_paths=[str(allowed)])
    with pytest.raises(TrustViolation):
        with_tests_inline(
            TestSuite(id="t", kind="tests", tests_file=str(allowed / "test_escape.py")), trust
        )
    inline = with_tests_inline(
        TestSuite(id="t", kind="tests", tests_file=str(allowed / "test_ok.py")), trust
    )
    assert inline.tests_file is None and "def test_ok" in (inline.tests or "")


def test_a_client_cannot_choose_a_prompts_directory(tmp_path) -> None:
    with pytest.raises(TrustViolation, match="prompts_dir"):
        check_context(Context(prompts_dir=str(tmp_path)), served())
    assert check_context(Context(prompts_dir=str(tmp_path)), served(allowed_paths=[str(tmp_path)]))


def test_templates_cannot_reach_python_internals(tmp_path) -> None:
    marker = tmp_path / "marker"
    (tmp_path / "worker_task.jinja").write_text(
        "{{ cycler.__init__.__globals__.os.system('touch " + str(marker) + "') }}"
    )
    with pytest.raises(SecurityError):
        render_prompt("worker_task.jinja", str(tmp_path), task="t", rules=[])
    assert not marker.exists()


def test_an_untrusted_run_is_refused_before_any_model_call(models, monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_UNTRUSTED_INPUT", "true")
    operator_settings.cache_clear()
    try:
        worker = models.script("worker")
        rubric = [{"id": "c", "kind": "python", "function": "os:system"}]
        with pytest.raises(TrustViolation):
            build_graph().invoke({"task": TASK, "rubric": rubric}, context=scripted_context())
        assert worker.calls == 0
    finally:
        monkeypatch.delenv("CRITIC_LOOP_UNTRUSTED_INPUT")
        operator_settings.cache_clear()
    assert os.environ.get("CRITIC_LOOP_UNTRUSTED_INPUT") is None


def test_a_client_sending_straight_to_a_node_is_held_to_the_policy(models, monkeypatch) -> None:
    """`Command(goto=Send("critique", ...))` skips check_input, not the policy in front of it."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command, Send

    monkeypatch.setenv("CRITIC_LOOP_UNTRUSTED_INPUT", "true")
    operator_settings.cache_clear()
    critic = models.script("critic")
    view = {
        "rubric": [{"id": "c", "text": "It is polite."}],
        "drafts": [{"round": 1, "text": "Hi"}],
    }
    graph = build_graph(InMemorySaver())
    try:
        for refused, match in (
            ({"base_url": "http://attacker.invalid/v1"}, "base_url"),
            ({"critic_attempts": 10}, "critic_attempts"),
        ):
            with pytest.raises(TrustViolation, match=match):
                graph.invoke(
                    Command(goto=Send("critique", view)),
                    {"configurable": {"thread_id": f"direct-{match}"}},
                    context=scripted_context(**refused).model_dump(exclude_unset=True),
                )
    finally:
        operator_settings.cache_clear()
    assert critic.calls == 0


def test_a_client_cannot_make_the_server_ask_a_host_of_its_choosing_for_models(
    monkeypatch,
) -> None:
    """Discovery runs after the policy: a client's own base_url is refused, never asked."""
    from langgraph.runtime import Runtime

    from critic_loop.nodes.models import discovery
    from critic_loop.nodes.operator_policy import within_policy

    asked: list[str] = []
    monkeypatch.setattr(discovery, "discover_model", lambda url: asked.append(url) or "m")
    monkeypatch.setenv("CRITIC_LOOP_UNTRUSTED_INPUT", "true")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://operator.invalid/v1")
    operator_settings.cache_clear()
    try:
        runtime = Runtime(context={"base_url": "http://attacker.invalid/v1"})
        with pytest.raises(TrustViolation, match="base_url"):
            within_policy(runtime)
        assert asked == []
        served_context = within_policy(Runtime(context={})).context
    finally:
        operator_settings.cache_clear()
    assert asked == ["http://operator.invalid/v1"]
    assert served_context.worker_model == "openai:m"
