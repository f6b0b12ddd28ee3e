"""A real (small, slow, often wrong) model through the whole graph: invariants only."""

import logging
from pathlib import Path
from typing import get_args

from critic_loop import run_loop
from critic_loop.graphs.app import build_graph
from critic_loop.nodes.loop.generate import worker_prompt
from critic_loop.nodes.loop.worker_turns import first_turns
from critic_loop.nodes.verifiers.checks.text import count_words
from critic_loop.persistence import open_persistence
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Outcome
from critic_loop.state.rules import Rule, rules_namespace

logger = logging.getLogger("critic_loop.real_model")

DECLARED: set[str] = set(get_args(Outcome))


def assert_well_formed(state: LoopState, rubric: list[dict], cap: int) -> None:
    """Invariants every finished run holds, whatever the model said."""
    assert state.outcome in DECLARED
    assert 1 <= state.rounds <= cap
    # a round holds one draft, or several candidates (`candidates`, auto for code tasks)
    draft_rounds = [d.round for d in state.drafts]
    critique_rounds = [c.round for c in state.critiques]
    assert draft_rounds == sorted(draft_rounds)
    assert sorted({*draft_rounds}) == list(range(1, state.rounds + 1))
    assert sorted({*critique_rounds}) == list(range(1, state.rounds + 1))
    ids = [criterion["id"] for criterion in rubric]
    for critique in state.critiques:
        assert (critique.verdict is None) != (critique.error is None)
        if critique.verdict is not None:
            assert [r.criterion_id for r in critique.verdict.results] == ids
            assert critique.verdict.passed == all(r.passed for r in critique.verdict.results)
            assert all(r.evidence.strip() for r in critique.verdict.results)
    last_round = [c.verdict for c in state.critiques if c.round == state.rounds]
    if state.outcome == "passed":
        assert any(v is not None and v.passed for v in last_round) and state.open_items == []
    else:
        assert state.open_items, "a run that did not pass says what is still open"
    assert state.final in [draft.text for draft in state.drafts]
    logger.info(
        "outcome %s after %d round(s); open: %s",
        state.outcome,
        state.rounds,
        [item.criterion_id for item in state.open_items],
    )


def persisted(database: Path, thread_id: str) -> dict:
    with open_persistence(database) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        return dict(graph.get_state({"configurable": {"thread_id": thread_id}}).values)


def test_writing_task_with_a_word_limit_and_an_llm_criterion(
    real_context, log_events, tmp_path
) -> None:
    rubric = [
        {"id": "short", "kind": "word_count", "min": 10, "max": 60},
        {"id": "sea", "text": "It mentions the sea, the ocean or the coast."},
    ]
    database = tmp_path / "runs.sqlite"
    state = run_loop(
        "Write two sentences describing a lighthouse for a travel brochure.",
        rubric,
        context=real_context.model_copy(update={"memory": False}),
        database=database,
        thread_id="writing",
        on_event=log_events("writing"),
    )
    assert_well_formed(state, rubric, real_context.max_iterations)
    for draft, critique in zip(state.drafts, state.critiques, strict=True):
        if critique.verdict is not None:  # the deterministic check really counted
            words = count_words(draft.text)
            assert critique.verdict.results[0].passed == (10 <= words <= 60)
    saved = persisted(database, "writing")
    assert [d["text"] for d in saved["drafts"]] == [d.text for d in state.drafts]
    assert len(saved["critiques"]) == state.rounds


def test_code_task_with_a_test_suite(real_context, log_events, tmp_path) -> None:
    tests = (
        "from solution import is_even\n\n"
        "def test_even():\n    assert is_even(4) is True\n\n"
        "def test_odd():\n    assert is_even(7) is False\n\n"
        "def test_zero():\n    assert is_even(0) is True\n"
    )
    rubric = [
        {"id": "syntax", "kind": "python_syntax"},
        {"id": "tests", "kind": "tests", "tests": tests, "timeout_seconds": 20},
    ]
    state = run_loop(
        "Write a Python function is_even(n) that returns True when n is even and False "
        "otherwise. Reply with the code only.",
        rubric,
        context=real_context.model_copy(update={"memory": False}),
        database=tmp_path / "runs.sqlite",
        thread_id="code",
        on_event=log_events("code"),
    )
    assert_well_formed(state, rubric, real_context.max_iterations)
    for critique in state.critiques:
        assert critique.verdict is not None  # checks only: no judge, no verifier error
        assert critique.attempts == 0
        tests_result = critique.verdict.results[1]
        assert tests_result.passed == tests_result.evidence.startswith("All 3 tests passed")


def test_memory_twice_in_one_scope(real_context, log_events, tmp_path) -> None:
    rubric = [
        {"id": "short", "kind": "word_count", "max": 40},
        {"id": "friendly", "text": "The tone is warm and friendly."},
    ]
    database = tmp_path / "memory.sqlite"
    context = real_context.model_copy(update={"memory_scope": "greetings", "recall_k": 5})
    task = "Write a short welcome message for new members of a hiking club."

    first = run_loop(
        task,
        rubric,
        context=context,
        database=database,
        thread_id="m1",
        on_event=log_events("memory-1"),
    )
    assert_well_formed(first, rubric, context.max_iterations)
    assert first.recalled_rules == []
    with open_persistence(database) as persistence:
        items = persistence.store.search(rules_namespace("greetings"), limit=100)
        stored = {item.key: Rule.model_validate(item.value) for item in items}
    report = first.memory_report
    logger.info(
        "memory after run 1: report=%s errors=%s rules=%s",
        report,
        first.memory_errors,
        [rule.text for rule in stored.values()],
    )
    assert report is not None  # distilled, skipped with a reason, or failed with an error
    if first.outcome == "verifier_error":
        assert report.skipped is not None
    assert set(stored) == set(report.added)
    for rule in stored.values():
        assert rule.text.strip() and rule.scope == "greetings"
        assert rule.provenance.thread_id == "m1" and rule.provenance.outcome == first.outcome
        assert rule.usage.consulted == 0

    second = run_loop(
        task,
        rubric,
        context=context,
        database=database,
        thread_id="m2",
        on_event=log_events("memory-2"),
    )
    assert_well_formed(second, rubric, context.max_iterations)
    assert {rule.id for rule in second.recalled_rules} == set(stored)
    if stored:  # the worker's first prompt of run 2 holds every rule (its turn is rebuilt)
        [turn, *_] = first_turns(second.task, second.recalled_rules, context)
        worker_first_prompt = "\n".join(message.text for message in worker_prompt(turn, context))
        assert all(rule.text in worker_first_prompt for rule in stored.values())
    with open_persistence(database) as persistence:
        for rule_id in stored:
            item = persistence.store.get(rules_namespace("greetings"), rule_id)
            if item is None:  # retired or deleted by run 2's distillation
                continue
            usage = Rule.model_validate(item.value).usage
            counted = second.outcome != "verifier_error"
            assert usage.consulted == (1 if counted else 0)
            assert usage.passed == (1 if second.outcome == "passed" else 0)
