"""Operator ceilings: a served client cannot raise any count or limit past them."""

import asyncio
import re
import threading
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest

from critic_loop.nodes.operator_policy import (
    OPERATOR,
    Trust,
    check_context,
    check_rubric,
    runnable_suite,
)
from critic_loop.nodes.verifiers.checks.test_suite import host_limits
from critic_loop.sandbox.runner import Slots
from critic_loop.state.context import AUTO_CANDIDATES, Context
from critic_loop.state.errors import CeilingExceeded
from critic_loop.state.operator_settings import (
    CONTEXT_CEILINGS,
    TEST_CEILINGS,
    Ceilings,
    OperatorSettings,
    operator_settings,
    variable,
)
from critic_loop.state.rubric import TestSuite
from tests.support.contexts import context_maxima

TESTS = "def test_ok():\n    assert True\n"

# numeric `Context` fields without a ceiling, and why none is needed (docs/security.md)
UNCAPPED_CONTEXT_FIELDS: dict[str, str] = {
    "temperature": "a sampling setting, not an amount",
    "critic_temperature": "a sampling setting, not an amount",
    "sample_temperature": "a sampling setting, not an amount",
    "pass_threshold": "a quality bar, not an amount",
    "critic_min_agreement": "a quality bar, not an amount: it makes no call more",
    "stall_rounds": "it can end a run sooner, never later than max_iterations",
    "sample_budget": "fresh drafts are worker calls, bounded by call_budget and max_iterations",
    "recall_min_relevance": "a relevance floor, not an amount: recall_k bounds the rules given",
}


def served(**ceilings: Any) -> Trust:
    return Trust(served=True, settings=OperatorSettings(ceilings=Ceilings(**ceilings)))


def operator(**ceilings: Any) -> Trust:
    return Trust(served=False, settings=OperatorSettings(ceilings=Ceilings(**ceilings)))


def kinds(annotation: Any) -> set[Any]:
    """The types a field's annotation admits, `Annotated` unwrapped."""
    found = {annotation}
    for argument in get_args(annotation):
        found |= kinds(argument) if get_args(argument) else {argument}
    return found


def amounts(annotation: Any) -> bool:
    """Whether a field's type holds an amount (a number, or a list whose length counts)."""
    return bool(kinds(annotation) & {int, float}) or get_origin(annotation) is list


def test_every_count_and_limit_a_client_sets_has_a_ceiling_or_a_stated_reason() -> None:
    numeric = {name for name, field in Context.model_fields.items() if amounts(field.annotation)}
    assert numeric == set(CONTEXT_CEILINGS) | set(UNCAPPED_CONTEXT_FIELDS)
    assert set(CONTEXT_CEILINGS) <= set(Ceilings.model_fields)
    suite = {
        name
        for name, field in TestSuite.model_fields.items()
        if amounts(field.annotation) and name != "weight"
    }
    assert suite == set(TEST_CEILINGS)
    assert set(TEST_CEILINGS.values()) <= set(Ceilings.model_fields)


def test_the_built_in_defaults_fit_under_the_default_ceilings() -> None:
    context, ceilings = Context(), Ceilings()
    for name in CONTEXT_CEILINGS:
        value = getattr(context, name)
        if value == "auto":  # candidates: the most it resolves to
            value = AUTO_CANDIDATES
        amount = len(value) if isinstance(value, list) else value
        assert amount is None or amount <= getattr(ceilings, name), name
    assert check_context(context, served()).model_dump(exclude=set(CONTEXT_CEILINGS)) == (
        context.model_dump(exclude=set(CONTEXT_CEILINGS))
    )


def test_a_served_client_asking_for_more_is_refused_naming_each_setting() -> None:
    maxima = context_maxima()
    with pytest.raises(CeilingExceeded) as refused:
        check_context(Context(**maxima), served())
    message = str(refused.value)
    assert message.startswith("the run's context asks for more than this server allows: ")
    assert "\n" not in message
    for name in CONTEXT_CEILINGS:
        assert f"{name}=" in message and variable(name) in message, name
    assert "candidates=8 (the most is 4, CRITIC_LOOP_CEILING_CANDIDATES)" in message
    assert "critic_models=7 (the most is 3, CRITIC_LOOP_CEILING_CRITIC_MODELS)" in message


def test_a_client_may_ask_for_up_to_the_ceiling() -> None:
    ceilings = Ceilings()
    asked = {name: getattr(ceilings, name) for name in CONTEXT_CEILINGS}
    asked["critic_models"] = ["openai:a", "openai:b", "openai:c"]
    held = check_context(Context(**asked), served())
    assert held.candidates == 4 and held.call_budget == 200 and len(held.critic_models) == 3


def test_what_nobody_chose_is_lowered_to_the_ceiling_in_every_run() -> None:
    for trust in (served(candidates=2), operator(candidates=2)):
        held = check_context(Context(), trust)
        assert held.candidates == 2  # "auto" may write 3
        assert held.call_budget == 200
        assert held.token_budget == 1_000_000
        assert held.time_budget_seconds == 1800
        assert held.worker_max_tokens == 8192  # no limit of its own: the ceiling's
    lowered = check_context(Context(), served(max_iterations=5, worker_attempts=1))
    assert (lowered.max_iterations, lowered.worker_attempts) == (5, 1)


def test_the_deployments_own_default_above_a_ceiling_is_lowered_not_refused(monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_MAX_ITERATIONS", "50")
    assert check_context(Context(), served()).max_iterations == 20
    with pytest.raises(CeilingExceeded, match="max_iterations=60"):
        check_context(Context(max_iterations=60), served())


def test_the_operator_may_ask_for_more_explicitly() -> None:
    held = check_context(Context(candidates=8, call_budget=5000), operator())
    assert (held.candidates, held.call_budget) == (8, 5000)
    assert check_context(Context(max_iterations=100), OPERATOR).max_iterations == 100


def test_a_served_test_suite_above_a_ceiling_is_refused_before_it_runs() -> None:
    asked = TestSuite(
        id="t", kind="tests", tests=TESTS, memory_mb=65536, max_processes=4096, work_dir_mb=65536
    )
    with pytest.raises(CeilingExceeded) as refused:
        check_rubric([asked], served())
    message = str(refused.value)
    assert message.startswith("criterion 't' asks for more than this server allows: ")
    assert "memory_mb=65536 (the most is 512, CRITIC_LOOP_CEILING_TEST_MEMORY_MB)" in message
    assert "max_processes=4096 (the most is 8" in message
    assert "work_dir_mb=65536 (the most is 256" in message
    with pytest.raises(CeilingExceeded):
        runnable_suite(asked, served())  # where it would run: a rubric edited in state too


def test_a_test_suites_default_limits_are_lowered_for_every_run() -> None:
    suite = TestSuite(id="t", kind="tests", tests=TESTS)
    for trust in (served(), operator()):
        held = runnable_suite(suite, trust)
        assert (held.memory_mb, held.max_processes, held.work_dir_mb) == (512, 8, 256)
        assert held.timeout_seconds == 60  # the default is under the ceiling
    mine = TestSuite(id="t", kind="tests", tests=TESTS, memory_mb=2048, max_processes=32)
    assert (runnable_suite(mine, operator()).memory_mb, mine.max_processes) == (2048, 32)


async def test_no_more_test_runs_than_the_operator_allows_go_at_once(monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_MAX_CONCURRENT_TESTS", "2")
    operator_settings.cache_clear()
    slots, seen = Slots(), []

    async def one_run() -> None:
        async with slots.held(host_limits().concurrent_runs):
            seen.append(slots.running)
            await asyncio.sleep(0.02)

    def one_blocking_run() -> None:  # a sync caller drives the same code in its own loop
        asyncio.run(one_run())

    try:
        threads = [threading.Thread(target=one_blocking_run) for _ in range(3)]
        for thread in threads:
            thread.start()
        await asyncio.gather(*(one_run() for _ in range(5)))
        for thread in threads:
            thread.join()
    finally:
        operator_settings.cache_clear()
    assert len(seen) == 8 and max(seen) == 2 and slots.running == 0


def test_the_security_page_lists_every_ceiling_with_its_default() -> None:
    page = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    listed = dict(re.findall(r"^\| `(CRITIC_LOOP_CEILING_\w+)` \| (\d+) \|", page, re.MULTILINE))
    defaults = Ceilings()
    assert listed == {
        variable(name): str(int(getattr(defaults, name))) for name in Ceilings.model_fields
    }
