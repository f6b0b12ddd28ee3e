"""Memory: rules distilled from one run are recalled by the next run of the same scope."""

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore, GetOp, SearchOp
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from critic_loop.graphs.app import build_graph
from critic_loop.graphs.distill import build_distill_graph
from critic_loop.nodes.memory.lexical_embeddings import rule_index
from critic_loop.nodes.memory.ranking import HEAD_KEY, RANKING_KEY, ranking_namespace
from critic_loop.state.context import Context
from critic_loop.state.rules import Rule, rules_namespace
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

SQL_RULE = "Qualify every column with its table alias when a query joins tables."
POEM_RULE = "Count the syllables of each line before answering."


def add(text: str, *criteria: str) -> dict:
    return {"action": "add", "rule_id": "", "text": text, "criteria": list(criteria), "reason": "r"}


def operations(*ops: dict) -> dict:
    return {"operations": list(ops)}


@pytest.fixture(params=["memory-indexed", "memory-plain", "sqlite"])
def store(request, tmp_path) -> Iterator[BaseStore]:
    if request.param == "memory-indexed":
        yield InMemoryStore(index=rule_index())
    elif request.param == "memory-plain":
        yield InMemoryStore()
    else:
        with SqliteStore.from_conn_string(str(tmp_path / "store.sqlite")) as sqlite_store:
            sqlite_store.setup()
            yield sqlite_store


def memory_context(scope: str, **overrides) -> Context:
    return Context(
        worker_model="scripted:worker",
        critic_model="scripted:critic",
        distill_model="scripted:distill",
        memory_scope=scope,
        **overrides,
    )


def rules_in(store: BaseStore, scope: str) -> dict[str, Rule]:
    items = store.search(rules_namespace(scope), limit=100)
    return {item.key: Rule.model_validate(item.value) for item in items}


def run(store, loop_input, context, thread_id="t"):
    graph = build_graph(checkpointer=InMemorySaver(), store=store)
    return graph.invoke(loop_input, {"configurable": {"thread_id": thread_id}}, context=context)


def test_rules_learned_in_a_scope_reach_the_next_worker_of_that_scope_only(
    models, store, loop_input
) -> None:
    # run 1 in "sql": fails once, passes, and distills a rule
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"example": "Add an example."}), graded(RUBRIC))
    models.script("distill", operations(add(SQL_RULE, "example")))
    first = run(store, loop_input, memory_context("sql"), thread_id="run-1")
    assert first["outcome"] == "passed"
    assert first["memory_report"]["added"] and first["memory_errors"] == []
    [(rule_id, rule)] = rules_in(store, "sql").items()
    assert rule.text == SQL_RULE
    assert rule.criteria == ["example"]
    assert rule.scope == "sql"
    assert rule.provenance.thread_id == "run-1"
    assert rule.provenance.outcome == "passed" and rule.provenance.rounds == 2
    assert rule.usage.consulted == 0
    assert rules_in(store, "poetry") == {}

    # run 2 in "sql": the worker's first prompt carries the rule; the critic never sees it
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations())
    second = run(store, loop_input, memory_context("sql"), thread_id="run-2")
    assert second["outcome"] == "passed"
    assert [r["id"] for r in second["recalled_rules"]] == [rule_id]
    first_prompt = models["worker"].texts()[0]
    assert SQL_RULE in first_prompt
    assert first_prompt.index(SQL_RULE) < first_prompt.index(TASK)
    assert all(SQL_RULE not in prompt for prompt in models["critic"].texts())

    # the run that consulted the rule is recorded in its usage statistics
    usage = rules_in(store, "sql")[rule_id].usage
    assert (usage.consulted, usage.passed, usage.rounds_when_passed) == (1, 1, 1)

    # run 3 in "poetry" sees nothing from "sql"
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations())
    third = run(store, loop_input, memory_context("poetry"), thread_id="run-3")
    assert third["recalled_rules"] == []
    assert SQL_RULE not in models["worker"].texts()[0]


def test_usage_counts_failed_runs_without_their_rounds(models, loop_input) -> None:
    store = InMemoryStore()
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations(add(SQL_RULE)))
    run(store, loop_input, memory_context("sql"))
    [rule_id] = rules_in(store, "sql")
    models.script("worker", "a", "b")
    models.script("critic", *[graded(RUBRIC, {"tone": "simpler"})] * 2)
    models.script("distill", operations())
    out = run(store, loop_input, memory_context("sql", max_iterations=2))
    assert out["outcome"] == "exhausted"
    usage = rules_in(store, "sql")[rule_id].usage
    assert (usage.consulted, usage.passed, usage.rounds_when_passed) == (1, 0, 0)
    assert usage.usefulness == pytest.approx(1 / 3)


def distill_input(**overrides) -> dict:
    critiques = [
        {"round": 1, "verdict": graded(RUBRIC, {"example": "Add one."})},
        {"round": 2, "verdict": graded(RUBRIC)},
    ]
    return {
        "task": TASK,
        "rubric": [c.model_dump() for c in RUBRIC],
        "drafts": [{"round": 1, "text": "first"}, {"round": 2, "text": "second"}],
        "critiques": critiques,
        "outcome": "passed",
        "source_thread_id": "earlier-thread",
        **overrides,
    }


def distill(store, context=None, **overrides) -> dict:
    graph = build_distill_graph(store=store)
    return graph.invoke(distill_input(**overrides), context=context or memory_context("sql"))


def test_the_same_lesson_twice_is_stored_once(models, store) -> None:
    models.script(
        "distill",
        operations(add("Count the words before answering.", "length")),
        operations(add("count the WORDS before answering!", "tone")),
    )
    first = distill(store)["memory_report"]
    second = distill(store)["memory_report"]
    rules = rules_in(store, "sql")
    assert len(rules) == 1
    [(rule_id, rule)] = rules.items()
    assert first["added"] == [rule_id]
    assert second["added"] == [] and second["reinforced"] == [rule_id]
    assert rule.text == "Count the words before answering."
    assert rule.criteria == ["length", "tone"]
    assert rule.last_changed_by is not None


def test_an_update_operation_rewrites_a_rule(models, store) -> None:
    models.script("distill", operations(add("Give one example.", "example")))
    distill(store)
    [rule_id] = rules_in(store, "sql")
    models.script(
        "distill",
        operations(
            {
                "action": "update",
                "rule_id": rule_id,
                "text": "Give exactly one worked example with real values.",
                "criteria": ["example"],
                "reason": "more precise",
            }
        ),
    )
    report = distill(store)["memory_report"]
    assert report["updated"] == [rule_id]
    rule = rules_in(store, "sql")[rule_id]
    assert rule.text == "Give exactly one worked example with real values."
    assert rule.updated_at > rule.created_at


def test_delete_and_unknown_ids(models, store) -> None:
    models.script("distill", operations(add("Give one example."), add("Define every term.")))
    distill(store)
    ids = list(rules_in(store, "sql"))
    delete = {"action": "delete", "rule_id": ids[0], "text": "", "criteria": [], "reason": "r"}
    ghost = {**delete, "rule_id": "no-such-rule"}
    models.script("distill", operations(delete, ghost))
    report = distill(store)["memory_report"]
    assert report["deleted"] == [ids[0]]
    assert report["rejected"] == ["delete: no rule has id 'no-such-rule'"]
    assert list(rules_in(store, "sql")) == ids[1:]


def test_copies_of_task_drafts_or_criteria_are_not_rules(models, store) -> None:
    models.script(
        "distill",
        operations(
            add(TASK),
            add("Start with: " + "first draft text that is long enough to count here", "tone"),
            add("Make sure the answer is at most fifty words long."),
            add("word " * 60),
            add("Lead with the definition, then the example."),
        ),
    )
    report = distill(
        store, drafts=[{"round": 1, "text": "first draft text that is long enough to count here"}]
    )["memory_report"]
    assert [rule.text for rule in rules_in(store, "sql").values()] == [
        "Lead with the definition, then the example."
    ]
    reasons = " | ".join(report["rejected"])
    assert "copies the task" in reasons
    assert "copies a draft" in reasons
    assert "quotes criterion 'length'" in reasons
    assert "rules are at most 40 words" in reasons


def test_the_weakest_rules_are_retired_beyond_the_bound(models) -> None:
    store = InMemoryStore()
    models.script("distill", operations(add("Rule one is proven."), add("Rule two failed often.")))
    distill(store)
    ids = {rule.text: key for key, rule in rules_in(store, "sql").items()}
    for text, usage in (("Rule one is proven.", (4, 4)), ("Rule two failed often.", (4, 0))):
        item = store.get(rules_namespace("sql"), ids[text])
        value = {**item.value, "usage": {"consulted": usage[0], "passed": usage[1]}}
        store.put(rules_namespace("sql"), ids[text], value)
    models.script("distill", operations(add("Rule three is new.")))
    report = distill(store, context=memory_context("sql", max_rules=2))["memory_report"]
    assert report["retired"] == [ids["Rule two failed often."]]
    assert sorted(r.text for r in rules_in(store, "sql").values()) == [
        "Rule one is proven.",
        "Rule three is new.",
    ]


def test_recall_without_index_prefers_useful_then_recent_rules(models) -> None:
    store = InMemoryStore()
    models.script("distill", operations(add("Old but useful."), add("New and untried.")))
    distill(store)
    ids = {rule.text: key for key, rule in rules_in(store, "sql").items()}
    useful = store.get(rules_namespace("sql"), ids["Old but useful."])
    store.put(
        rules_namespace("sql"),
        ids["Old but useful."],
        {**useful.value, "usage": {"consulted": 3, "passed": 3}},
    )
    # a rule changed outside critic-loop: drop the scope's ranking so recall ranks afresh
    store.delete(ranking_namespace("sql"), RANKING_KEY)
    store.delete(ranking_namespace("sql"), HEAD_KEY)
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations())
    out = run(
        store,
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        memory_context("sql", recall_k=1),
    )
    assert [r["text"] for r in out["recalled_rules"]] == ["Old but useful."]


def test_recall_with_an_index_prefers_rules_similar_to_the_task(models) -> None:
    store = InMemoryStore(index=rule_index())
    models.script("distill", operations(add(POEM_RULE), add(SQL_RULE)))
    distill(store)
    models.script("worker", "SELECT ...")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations())
    sql_task = {
        "task": "Write a SQL query that joins the orders and customers tables.",
        "rubric": [c.model_dump() for c in RUBRIC],
    }
    out = run(store, sql_task, memory_context("sql", recall_k=1))
    assert [r["text"] for r in out["recalled_rules"]] == [SQL_RULE]


def test_memory_off_neither_recalls_nor_distills(models) -> None:
    store = InMemoryStore()
    models.script("distill", operations(add(SQL_RULE)))
    distill(store)
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill")  # any call would exhaust the script
    out = run(
        store,
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        memory_context("sql", memory=False),
    )
    assert out["outcome"] == "passed"
    assert out["recalled_rules"] == []
    assert out["memory_report"]["skipped"] == "distillation is turned off for this run"
    assert SQL_RULE not in models["worker"].texts()[0]
    assert models["distill"].calls == 0


def test_recall_and_distill_switch_separately(models, loop_input) -> None:
    store = InMemoryStore()
    models.script("distill", operations(add(SQL_RULE)))
    distill(store)
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations(add(POEM_RULE)))
    out = run(store, loop_input, memory_context("sql", recall=False))
    assert out["recalled_rules"] == []
    assert len(rules_in(store, "sql")) == 2  # distilled anyway
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill")
    out = run(store, loop_input, memory_context("sql", distill=False))
    assert len(out["recalled_rules"]) == 2
    assert models["distill"].calls == 0


def test_verifier_error_runs_are_not_distilled(models, loop_input) -> None:
    store = InMemoryStore()
    models.script("worker", "draft")
    models.script("critic", "garbage")
    models.script("distill")
    out = run(store, loop_input, memory_context("sql", critic_attempts=1))
    assert out["outcome"] == "verifier_error"
    assert out["memory_report"]["skipped"] == "the run did not complete (outcome: verifier_error)"
    assert models["distill"].calls == 0


def test_a_near_duplicate_lesson_is_merged_not_added(models, store) -> None:
    models.script(
        "distill",
        operations(add("Count the words before answering.", "length")),
        operations(add("Count the words before you answer.", "length")),
    )
    distill(store)
    report = distill(store)["memory_report"]
    [rule_id] = rules_in(store, "sql")
    assert report["added"] == [] and report["reinforced"] == [rule_id]


def test_an_update_that_restates_another_rule_merges_the_two(models, store) -> None:
    models.script("distill", operations(add("Give one example."), add("Define every term.")))
    distill(store)
    ids = {rule.text: key for key, rule in rules_in(store, "sql").items()}
    restated = {
        "action": "update",
        "rule_id": ids["Define every term."],
        "text": "Give one example!",
        "criteria": [],
        "reason": "same lesson",
    }
    models.script("distill", operations(restated))
    report = distill(store)["memory_report"]
    assert [r.text for r in rules_in(store, "sql").values()] == ["Give one example."]
    assert report["deleted"] == [ids["Define every term."]]
    assert report["reinforced"] == [ids["Give one example."]]


def test_usage_records_the_rounds_a_passing_run_took(models, loop_input) -> None:
    store = InMemoryStore()
    models.script("distill", operations(add(SQL_RULE)))
    distill(store)
    [rule_id] = rules_in(store, "sql")
    models.script("worker", "draft 1", "draft 2", "draft 3")
    models.script(
        "critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"length": "y"}), graded(RUBRIC)
    )
    models.script("distill", operations())
    assert run(store, loop_input, memory_context("sql"))["outcome"] == "passed"
    usage = rules_in(store, "sql")[rule_id].usage
    assert (usage.consulted, usage.passed, usage.rounds_when_passed) == (1, 1, 3)


def test_a_verifier_error_run_leaves_usage_untouched(models, loop_input) -> None:
    store = InMemoryStore()
    models.script("distill", operations(add(SQL_RULE)))
    distill(store)
    [rule_id] = rules_in(store, "sql")
    models.script("worker", "draft")
    models.script("critic", "garbage")
    out = run(store, loop_input, memory_context("sql", critic_attempts=1))
    assert out["outcome"] == "verifier_error"
    assert [r["id"] for r in out["recalled_rules"]] == [rule_id]  # it was consulted...
    assert rules_in(store, "sql")[rule_id].usage.consulted == 0  # ...but says nothing


class SearchCountingStore(InMemoryStore):
    """An in-memory store that records the searches and reads made of it."""

    def __init__(self) -> None:
        super().__init__()
        self.searched: list[tuple[tuple[str, ...], int]] = []
        self.read_keys: list[tuple[tuple[str, ...], str]] = []

    def batch(self, ops):
        ops = list(ops)
        self.searched += [(op.namespace_prefix, op.limit) for op in ops if isinstance(op, SearchOp)]
        self.read_keys += [(op.namespace, op.key) for op in ops if isinstance(op, GetOp)]
        return super().batch(ops)


def test_recall_in_a_large_scope_reads_only_the_rankings_head() -> None:
    """Recall's cost does not grow with the scope: it reads the head, never the whole list."""
    from critic_loop.nodes.memory.ranking import (
        HEAD,
        ranked,
        ranking_put,
        ranking_writes,
        strongest_rules,
    )
    from critic_loop.nodes.steps import run_steps

    store = SearchCountingStore()
    values = {
        f"rule{n:04d}": {"text": f"Rule {n}.", "usage": {"consulted": n, "passed": n}}
        for n in range(HEAD * 3)
    }
    for rule_id, value in values.items():
        store.put(rules_namespace("big"), rule_id, value)
    entries = ranked(values.items())
    store.batch(ranking_writes("big", entries))
    store.read_keys.clear()
    strongest = [item.key for item in run_steps(strongest_rules(store, "big", 5))]
    assert strongest == [entry[0] for entry in entries[:5]]  # the most useful first
    rankings_read = [key for namespace, key in store.read_keys if namespace[1] == "ranking"]
    assert rankings_read == [HEAD_KEY]  # not the whole ranking
    assert len(store.read_keys) == 1 + 5 + 5  # the head, then recall_k + SLACK rules
    assert store.searched == []

    store.delete(ranking_namespace("big"), HEAD_KEY)  # a ranking written alone
    store.batch([ranking_put("big", entries)])
    store.read_keys.clear()
    assert [item.key for item in run_steps(strongest_rules(store, "big", 5))] == strongest
    assert (ranking_namespace("big"), RANKING_KEY) in store.read_keys


def test_recall_reads_the_ranking_not_the_scope(models) -> None:
    store = SearchCountingStore()
    models.script("distill", operations(*(add(f"Rule number {n} helps.") for n in range(1, 9))))
    distill(store, context=memory_context("sql", max_rules=20))
    ranking = store.get(ranking_namespace("sql"), RANKING_KEY)
    assert len(ranking.value["rules"]) == 8  # consolidation ranked every rule
    store.searched.clear()
    searched = store.searched
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations())
    out = run(
        store,
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        memory_context("sql", recall_k=3),
    )
    assert len(out["recalled_rules"]) == 3
    recall_reads = [limit for namespace, limit in searched if namespace == rules_namespace("sql")]
    # recall: one search of recall_k rules, then the ranking item and a batch of reads;
    # the only full read is consolidation's, after the run
    assert recall_reads == [3, 1000]


def test_usage_recording_keeps_the_ranking_current(models) -> None:
    store = InMemoryStore()
    models.script("distill", operations(add("Check the word count before answering.")))
    distill(store)
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations())
    run(store, {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}, memory_context("sql"))
    ranking = store.get(ranking_namespace("sql"), RANKING_KEY)
    [(rule_id, usefulness, _)] = ranking.value["rules"]
    assert usefulness == (1 + 1) / (1 + 2)  # passed 1 of 1 consultation


@pytest.mark.parametrize("memory", [True, False])
def test_the_memory_steps_run_only_when_they_have_work(models, loop_input, memory) -> None:
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations(add(SQL_RULE)))
    graph = build_graph(checkpointer=InMemorySaver(), store=InMemoryStore())
    steps = [
        next(iter(update))
        for update in graph.stream(
            loop_input,
            {"configurable": {"thread_id": "t"}},
            context=memory_context("sql", memory=memory),
            stream_mode="updates",
        )
    ]
    after = steps[steps.index("finalize") + 1 :]
    assert after == (["record_rule_usage", "distill"] if memory else [])
    assert models["distill"].calls == (1 if memory else 0)


def test_every_checkpoint_of_a_run_holds_data_not_python_types(models, loop_input) -> None:
    # what the loop hands the distill subgraph must be plain JSON too: served on its own,
    # the subgraph keeps checkpoints of its input, and any serializer would store (and,
    # loading, construct) project types
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "warmer"}), graded(RUBRIC))
    models.script("distill", operations(add(SQL_RULE)))
    saver = InMemorySaver()
    graph = build_graph(checkpointer=saver, store=InMemoryStore())
    out = graph.invoke(
        loop_input, {"configurable": {"thread_id": "t"}}, context=memory_context("sql")
    )
    assert out["memory_report"]["added"]
    stored = [
        *(value for _, value in saver.blobs.items()),
        *(
            entry[0]
            for spaces in saver.storage.values()
            for entries in spaces.values()
            for entry in entries.values()
        ),
        *(write[2] for writes in saver.writes.values() for write in writes.values()),
    ]
    assert stored and not [item for item in stored if b"critic_loop" in item[1]]


def test_the_distill_step_keeps_no_checkpoints_of_its_own(models, loop_input) -> None:
    # its input is the run's whole history: checkpointed, it would be stored twice more
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC))
    models.script("distill", operations(add(SQL_RULE)))
    saver = InMemorySaver()
    graph = build_graph(checkpointer=saver, store=InMemoryStore())
    out = graph.invoke(
        loop_input, {"configurable": {"thread_id": "t"}}, context=memory_context("sql")
    )
    assert out["memory_report"]["added"] and out["memory_errors"] == []
    namespaces = {space for spaces in saver.storage.values() for space in spaces}
    assert namespaces == {""}
    assert not [key for key in saver.writes if key[1]]


def test_the_distill_handoff_names_every_field_of_a_finished_run() -> None:
    from critic_loop.graphs.app import DistillHandoff
    from critic_loop.state.distill import DistillInput

    # source_thread_id is for past threads distilled on their own; the loop's is its own
    assert set(DistillHandoff.__annotations__) == set(DistillInput.model_fields) - {
        "source_thread_id"
    }
