"""Every prompt fits an 8k-token context with room for the answer, even when runs get big."""

from langchain_core.messages.utils import count_tokens_approximately
from langgraph.store.memory import InMemoryStore

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.memory.relevance import topic_of
from critic_loop.state.context import Context
from critic_loop.state.rules import rules_namespace
from tests.support.verdicts import graded

CONTEXT_WINDOW = 8192
ANSWER_ROOM = 1500
BUDGET = CONTEXT_WINDOW - ANSWER_ROOM

RUBRIC = [
    {
        "id": f"c{n}",
        "text": f"Criterion {n}: " + "the artifact must satisfy a detailed, "
        "checkable condition about its content, its structure and its tone " * 2,
    }
    for n in range(12)
]
TASK = "Write a product page for a new hiking backpack. " + "Context sentence. " * 60
DRAFT = "word " * 700
LONG_HINT = "Rewrite this part so that it meets the requirement precisely. " * 12
LESSON_HINT = "Say exactly what reader {0} needs and nothing more. " * 5


def test_worker_critic_and_distiller_prompts_fit_an_8k_context(models) -> None:
    rounds = 10
    models.script("worker", *[f"draft {n}: {DRAFT}" for n in range(rounds)])
    failing = [  # each round fixes one more criterion and loses none
        {f"c{k}": LONG_HINT if k % 2 else LESSON_HINT.format(k) for k in range(n, 12)}
        for n in range(rounds)
    ]
    models.script("critic", *[graded(RUBRIC, fails, feedback=LONG_HINT) for fails in failing])
    models.script("distill", {"operations": []})
    store = InMemoryStore()
    for n in range(50):  # a full scope of long rules
        rule = {
            "text": f"Rule {n}: " + "always do the careful thing before answering " * 4,
            "scope": "big",
            "topics": [topic_of(TASK)] * 5,
            "provenance": {"outcome": "passed", "rounds": 2},
        }
        store.put(rules_namespace("big"), f"r{n}", rule)
    context = Context(
        worker_model="scripted:worker",
        critic_model="scripted:critic",
        distill_model="scripted:distill",
        memory_scope="big",
        max_iterations=rounds,
        stall_rounds=rounds,
    )
    out = build_graph(store=store).invoke({"task": TASK, "rubric": RUBRIC}, context=context)
    assert out["outcome"] == "exhausted"
    assert out["memory_errors"] == []
    assert len(out["recalled_rules"]) == context.recall_k
    assert len(out["memory_report"]["lessons"]) >= 3  # the distiller sees several
    sizes = {
        role: max(count_tokens_approximately(prompt) for prompt in models[role].prompts)
        for role in ("worker", "critic", "distill")
    }
    assert all(size < BUDGET for size in sizes.values()), sizes
