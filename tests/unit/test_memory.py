"""Memory: what a run shows is kept as rules, recalled by later runs of its kind and scope."""

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore, GetOp, SearchOp
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from critic_loop.graphs.app import build_graph
from critic_loop.graphs.distill import build_distill_graph
from critic_loop.nodes.memory.lexical_embeddings import rule_index
from critic_loop.nodes.memory.propose_rules import NOTHING_TO_LEARN
from critic_loop.nodes.memory.ranking import HEAD_KEY, RANKING_KEY, ranking_namespace
from critic_loop.nodes.memory.relevance import topic_of
from critic_loop.persistence import open_persistence
from critic_loop.state.context import Context
from critic_loop.state.rules import Rule, rules_namespace
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

EXAMPLE_HINT = "Add a worked example."
EXAMPLE_RULE = "Always add one worked example."


def add(text: str, *criteria: str) -> dict:
    return {"action": "add", "rule_id": "", "text": text, "criteria": list(criteria), "reason": "r"}


def operations(*ops: dict) -> dict:
    return {"operations": list(ops)}


@pytest.fixture(params=["memory-indexed", "memory-plain", "sqlite", "sqlite-indexed"])
def store(request, tmp_path) -> Iterator[BaseStore]:
    if request.param == "memory-indexed":
        yield InMemoryStore(index=rule_index())
    elif request.param == "memory-plain":
        yield InMemoryStore()
    elif request.param == "sqlite":
        with SqliteStore.from_conn_string(str(tmp_path / "store.sqlite")) as sqlite_store:
            sqlite_store.setup()
            yield sqlite_store
    else:  # the embedded default: pysqlite3 with sqlite-vec, where this Python can load it
        with open_persistence(tmp_path / "default.sqlite") as persistence:
            if not persistence.indexed:
                pytest.skip("this Python cannot load sqlite-vec (pysqlite3)")
            yield persistence.store


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


def script_fix(models, hints: dict[str, str], *answers: dict) -> None:
    """Script a run that fails the criteria in `hints` once, then passes; and the distiller."""
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, hints), graded(RUBRIC))
    models.script("distill", *answers)


def script_pass(models) -> None:
    """Script a run that passes at once (nothing to learn: the distiller is not called)."""
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC))
    models.script("distill")  # any call would exhaust the script


def test_rules_learned_in_a_scope_reach_the_next_worker_of_that_scope_only(
    models, store, loop_input
) -> None:
    # run 1 in "sql": fails "example", passes after its hint, and learns the lesson
    script_fix(models, {"example": EXAMPLE_HINT}, operations(add(EXAMPLE_RULE, "example")))
    first = run(store, loop_input, memory_context("sql"), thread_id="run-1")
    assert first["outcome"] == "passed"
    assert first["memory_report"]["lessons"] == [EXAMPLE_HINT]
    assert first["memory_report"]["added"] and first["memory_errors"] == []
    assert first["memory_report"]["calls"] == 1
    [(rule_id, rule)] = rules_in(store, "sql").items()
    assert rule.text == EXAMPLE_RULE
    assert rule.criteria == ["example"]
    assert rule.scope == "sql"
    assert rule.topics == [topic_of(TASK)]
    assert rule.provenance.thread_id == "run-1"
    assert rule.provenance.outcome == "passed" and rule.provenance.rounds == 2
    assert rule.usage.consulted == 0
    assert rules_in(store, "poetry") == {}

    # run 2 in "sql": the worker's first prompt carries the rule; the critic never sees it
    script_pass(models)
    second = run(store, loop_input, memory_context("sql"), thread_id="run-2")
    assert second["outcome"] == "passed"
    assert [r["id"] for r in second["recalled_rules"]] == [rule_id]
    first_prompt = models["worker"].texts()[0]
    assert EXAMPLE_RULE in first_prompt
    assert first_prompt.index(TASK) < first_prompt.index(EXAMPLE_RULE)  # the rule comes last
    assert all(EXAMPLE_RULE not in prompt for prompt in models["critic"].texts())
    assert second["memory_report"]["skipped"] == NOTHING_TO_LEARN
    assert models["distill"].calls == 0

    # the run that consulted the rule is recorded in its usage statistics
    usage = rules_in(store, "sql")[rule_id].usage
    assert (usage.consulted, usage.passed, usage.rounds_when_passed) == (1, 1, 1)

    # run 3 in "poetry" sees nothing from "sql"
    script_pass(models)
    third = run(store, loop_input, memory_context("poetry"), thread_id="run-3")
    assert third["recalled_rules"] == []
    assert EXAMPLE_RULE not in models["worker"].texts()[0]


SHOP_TASK = "Write a short product description of a stainless steel water bottle for our shop."
SHOP_LATER = "Write a short product description of wool hiking socks for our shop."
UNRELATED = ["Write a haiku about autumn rain.", "List three European capital cities."]


def test_a_rule_learned_on_one_family_reaches_its_family_and_no_unrelated_task(
    models, store
) -> None:
    rubric = [c.model_dump() for c in RUBRIC]
    script_fix(models, {"example": "Include 'Order now'."}, operations())
    learned = run(store, {"task": SHOP_TASK, "rubric": rubric}, memory_context("shop"), "learn")
    [rule] = rules_in(store, "shop").values()
    assert learned["memory_report"]["added"] and rule.text == "Include 'Order now'."
    for task in UNRELATED:  # another kind of task: nothing is recalled, nothing is shown
        script_pass(models)
        out = run(store, {"task": task, "rubric": rubric}, memory_context("shop"), task)
        assert out["recalled_rules"] == []
        assert "Order now" not in models["worker"].texts()[0]
    script_pass(models)
    later = run(store, {"task": SHOP_LATER, "rubric": rubric}, memory_context("shop"), "later")
    assert [r["text"] for r in later["recalled_rules"]] == ["Include 'Order now'."]
    assert "Include 'Order now'." in models["worker"].texts()[0]


def test_without_a_relevance_floor_every_rule_of_the_scope_is_recalled(models) -> None:
    store = InMemoryStore()
    rubric = [c.model_dump() for c in RUBRIC]
    script_fix(models, {"example": "Include 'Order now'."}, operations())
    run(store, {"task": SHOP_TASK, "rubric": rubric}, memory_context("shop"), "learn")
    script_pass(models)
    out = run(
        store,
        {"task": UNRELATED[0], "rubric": rubric},
        memory_context("shop", recall_min_relevance=0.0),
    )
    assert [r["text"] for r in out["recalled_rules"]] == ["Include 'Order now'."]


def test_usage_counts_failed_runs_without_their_rounds(models, loop_input) -> None:
    store = InMemoryStore()
    script_fix(models, {"example": EXAMPLE_HINT}, operations())
    run(store, loop_input, memory_context("sql"))
    [rule_id] = rules_in(store, "sql")
    models.script("worker", "a", "b")
    models.script("critic", *[graded(RUBRIC, {"tone": "simpler"})] * 2)
    models.script("distill")
    out = run(store, loop_input, memory_context("sql", max_iterations=2))
    assert out["outcome"] == "exhausted"
    assert out["memory_report"]["skipped"] == NOTHING_TO_LEARN  # "tone" never passed
    usage = rules_in(store, "sql")[rule_id].usage
    assert (usage.consulted, usage.passed, usage.rounds_when_passed) == (1, 0, 0)
    assert usage.usefulness == pytest.approx(1 / 3)


def distill_input(hints: dict[str, str] | None = None, **overrides) -> dict:
    critiques = [
        {"round": 1, "verdict": graded(RUBRIC, hints or {"example": "Add one."})},
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


def distill(store, context=None, hints=None, **overrides) -> dict:
    graph = build_distill_graph(store=store)
    return graph.invoke(distill_input(hints, **overrides), context=context or memory_context("sql"))


def learn(models, store, *hints: str, context=None) -> list[str]:
    """Keep `hints` as rules (lessons of criteria length, example, tone); return their ids."""
    models.script("distill", operations())
    before = set(rules_in(store, "sql"))
    ids = [c.id for c in RUBRIC]
    distill(store, context=context, hints=dict(zip(ids, hints, strict=False)))
    return [rule_id for rule_id in rules_in(store, "sql") if rule_id not in before]


def test_a_lesson_is_kept_as_it_is_when_the_distiller_adds_nothing(models, store) -> None:
    models.script("distill", operations())
    report = distill(store, hints={"length": "Cut it to at most 50 words."})["memory_report"]
    [(rule_id, rule)] = rules_in(store, "sql").items()
    assert report["added"] == [rule_id] and report["rejected"] == []
    assert rule.text == "Cut it to at most 50 words." and rule.criteria == ["length"]


def test_the_distiller_must_keep_what_the_lesson_quotes(models, store) -> None:
    models.script(
        "distill",
        operations(
            add("Keep answers short.", "length"),  # drops the number: refused
            add("Write clearly.", "tone"),  # restates nothing
            add("Cut every email to at most 50 words.", "length"),  # no email in sight
            add("Always cut it to at most 50 words.", "length"),
        ),
    )
    report = distill(store, hints={"length": "Cut it to at most 50 words."})["memory_report"]
    assert [rule.text for rule in rules_in(store, "sql").values()] == [
        "Always cut it to at most 50 words."
    ]
    assert report["rejected"] == [
        "add 'Keep answers short.': it restates none of the run's lessons",
        "add 'Write clearly.': it restates none of the run's lessons",
        "add 'Cut every email to at most 50 words.': it brings in words of neither its "
        "lesson nor the task: 'email'",
    ]


def test_the_same_lesson_twice_is_stored_once(models, store) -> None:
    lesson = {"length": "Count the words before answering."}
    models.script(
        "distill",
        operations(add("Count the words before answering.", "length")),
        operations(add("count the WORDS before answering!", "tone")),
    )
    first = distill(store, hints=lesson)["memory_report"]
    second = distill(store, hints=lesson)["memory_report"]
    rules = rules_in(store, "sql")
    assert len(rules) == 1
    [(rule_id, rule)] = rules.items()
    assert first["added"] == [rule_id]
    assert second["added"] == [] and second["reinforced"] == [rule_id]
    assert rule.text == "Count the words before answering."
    assert rule.criteria == ["length", "tone"]
    assert rule.topics == [topic_of(TASK)]
    assert rule.last_changed_by is not None


def test_reinforcing_a_rule_on_another_task_adds_that_task_s_topic(models, store) -> None:
    lesson = {"length": "Count the words before answering."}
    models.script("distill", operations(), operations())
    distill(store, hints=lesson)
    distill(store, hints=lesson, task="Explain what a binary tree is.")
    [rule] = rules_in(store, "sql").values()
    assert rule.topics == [topic_of(TASK), topic_of("Explain what a binary tree is.")]


def test_an_update_operation_rewrites_a_rule(models, store) -> None:
    [rule_id] = learn(models, store, "Give one example.")
    models.script(
        "distill",
        operations(
            {
                "action": "update",
                "rule_id": rule_id,
                "text": "Always give one worked example with real values.",
                "criteria": ["example"],
                "reason": "more precise",
            }
        ),
    )
    report = distill(store, hints={"example": "Give one worked example with real values."})[
        "memory_report"
    ]
    assert report["updated"] == [rule_id]
    rule = rules_in(store, "sql")[rule_id]
    assert rule.text == "Always give one worked example with real values."
    assert rule.updated_at > rule.created_at


def test_the_distiller_cannot_delete_rules_and_a_failed_distiller_keeps_the_lessons(
    models, store
) -> None:
    [rule_id] = learn(models, store, "Give one example.")
    delete = {"action": "delete", "rule_id": rule_id, "text": "", "criteria": [], "reason": "r"}
    models.script("distill", operations(delete), operations(delete))
    out = distill(store, hints={"tone": "Define every term."})
    assert out["memory_errors"][0].startswith("distill: no usable answer after 2 call(s)")
    assert out["memory_report"]["calls"] == 2
    texts = sorted(rule.text for rule in rules_in(store, "sql").values())
    assert texts == ["Define every term.", "Give one example."]


def test_an_update_of_an_unknown_rule_is_refused_and_the_lesson_kept(models, store) -> None:
    ghost = {
        "action": "update",
        "rule_id": "no-such-rule",
        "text": "Define every term you use.",
        "criteria": [],
        "reason": "r",
    }
    models.script("distill", operations(ghost))
    report = distill(store, hints={"tone": "Define every term."})["memory_report"]
    assert report["rejected"] == ["update: no rule has id 'no-such-rule'"]
    assert [rule.text for rule in rules_in(store, "sql").values()] == ["Define every term."]


def test_copies_of_task_drafts_or_criteria_are_not_rules(models, store) -> None:
    draft = "first draft text that is long enough to count here"
    models.script(
        "distill",
        operations(
            add(TASK + " Lead with the definition."),
            add("Lead with the definition, as in: " + draft, "tone"),
            add("Lead with the definition; make sure the answer is at most fifty words long."),
            add("Lead with the definition. " + "word " * 60),
            add("Lead with the definition, then the example."),
        ),
    )
    report = distill(
        store,
        hints={"tone": "Lead with the definition, then the example."},
        drafts=[{"round": 1, "text": draft}],
    )["memory_report"]
    assert [rule.text for rule in rules_in(store, "sql").values()] == [
        "Lead with the definition, then the example."
    ]
    reasons = " | ".join(report["rejected"])
    assert "copies the task" in reasons
    assert "copies a draft" in reasons
    assert "quotes criterion 'length'" in reasons
    assert "rules are at most 40 words" in reasons


def test_a_lesson_that_copies_a_draft_is_not_kept(models, store) -> None:
    draft = "The hash map stores every key beside its value in a bucket array"
    models.script("distill", operations())
    report = distill(
        store, hints={"example": f"Start with '{draft}'."}, drafts=[{"round": 1, "text": draft}]
    )["memory_report"]
    assert rules_in(store, "sql") == {}
    assert [reason.split(": ", 1)[1] for reason in report["rejected"]] == [
        "the rule copies a draft verbatim"
    ]


def test_the_weakest_rules_are_retired_beyond_the_bound(models) -> None:
    store = InMemoryStore()
    learn(models, store, "Rule one is proven.", "Rule two failed often.")
    ids = {rule.text: key for key, rule in rules_in(store, "sql").items()}
    for text, usage in (("Rule one is proven.", (4, 4)), ("Rule two failed often.", (4, 0))):
        item = store.get(rules_namespace("sql"), ids[text])
        value = {**item.value, "usage": {"consulted": usage[0], "passed": usage[1]}}
        store.put(rules_namespace("sql"), ids[text], value)
    models.script("distill", operations())
    report = distill(
        store, context=memory_context("sql", max_rules=2), hints={"tone": "Rule three is new."}
    )["memory_report"]
    assert report["retired"] == [ids["Rule two failed often."]]
    assert sorted(r.text for r in rules_in(store, "sql").values()) == [
        "Rule one is proven.",
        "Rule three is new.",
    ]


def test_recall_without_index_prefers_useful_then_recent_rules(models) -> None:
    store = InMemoryStore()
    learn(models, store, "Old but useful.", "New and untried.")
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
    script_pass(models)
    out = run(
        store,
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        memory_context("sql", recall_k=1),
    )
    assert [r["text"] for r in out["recalled_rules"]] == ["Old but useful."]


def test_recall_gives_the_rules_learned_on_tasks_like_this_one(models, store) -> None:
    sql_task = "Write a SQL query that joins the orders and customers tables."
    poem_task = "Write a sonnet about the sea, with five stresses in every line."
    models.script("distill", operations(), operations())
    distill(store, hints={"length": "Count the syllables of each line."}, task=poem_task)
    distill(store, hints={"tone": "Qualify each column with its table alias."}, task=sql_task)
    script_pass(models)
    later_sql = {
        "task": "Write a SQL query that lists the customers who have no orders.",
        "rubric": [c.model_dump() for c in RUBRIC],
    }
    out = run(store, later_sql, memory_context("sql"))
    assert [r["text"] for r in out["recalled_rules"]] == [
        "Qualify each column with its table alias."
    ]


def test_memory_off_neither_recalls_nor_distills(models) -> None:
    store = InMemoryStore()
    learn(models, store, "Add an example.")
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}), graded(RUBRIC))
    models.script("distill")  # any call would exhaust the script
    out = run(
        store,
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        memory_context("sql", memory=False),
    )
    assert out["outcome"] == "passed"
    assert out["recalled_rules"] == []
    assert out["memory_report"]["skipped"] == "distillation is turned off for this run"
    assert "Add an example." not in models["worker"].texts()[0]
    assert models["distill"].calls == 0


def test_recall_and_distill_switch_separately(models, loop_input) -> None:
    store = InMemoryStore()
    learn(models, store, "Add an example.")
    script_fix(models, {"tone": "Use plain words."}, operations())
    out = run(store, loop_input, memory_context("sql", recall=False))
    assert out["recalled_rules"] == []
    assert len(rules_in(store, "sql")) == 2  # distilled anyway
    script_fix(models, {"length": "Cut it short."})
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
    models.script("distill", operations(), operations())
    distill(store, hints={"length": "Count the words before answering."})
    report = distill(store, hints={"length": "Count the words before you answer."})["memory_report"]
    [rule_id] = rules_in(store, "sql")
    assert report["added"] == [] and report["reinforced"] == [rule_id]


def test_an_update_that_restates_another_rule_merges_the_two(models, store) -> None:
    learn(models, store, "Give one example.", "Define every term.")
    ids = {rule.text: key for key, rule in rules_in(store, "sql").items()}
    restated = {
        "action": "update",
        "rule_id": ids["Define every term."],
        "text": "Give one example!",
        "criteria": [],
        "reason": "same lesson",
    }
    models.script("distill", operations(restated))
    report = distill(store, hints={"example": "Give one example."})["memory_report"]
    assert [r.text for r in rules_in(store, "sql").values()] == ["Give one example."]
    assert report["deleted"] == [ids["Define every term."]]
    assert report["reinforced"] == [ids["Give one example."]]


def test_usage_records_the_rounds_a_passing_run_took(models, loop_input) -> None:
    store = InMemoryStore()
    [rule_id] = learn(models, store, "Add an example.")
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
    [rule_id] = learn(models, store, "Add an example.")
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
    strongest = [item.key for item in strongest_rules(store, "big", 5)]
    assert strongest == [entry[0] for entry in entries[:5]]  # the most useful first
    rankings_read = [key for namespace, key in store.read_keys if namespace[1] == "ranking"]
    assert rankings_read == [HEAD_KEY]  # not the whole ranking
    assert len(store.read_keys) == 1 + 5 + 5  # the head, then recall_k + SLACK rules
    assert store.searched == []

    store.delete(ranking_namespace("big"), HEAD_KEY)  # a ranking written alone
    store.batch([ranking_put("big", entries)])
    store.read_keys.clear()
    assert [item.key for item in strongest_rules(store, "big", 5)] == strongest
    assert (ranking_namespace("big"), RANKING_KEY) in store.read_keys


def test_recall_in_a_large_scope_reads_the_ranking_not_the_scope(models) -> None:
    from critic_loop.nodes.memory.ranking import HEAD, ranked, ranking_writes
    from critic_loop.nodes.memory.recall import POOL

    store = SearchCountingStore()
    values = {
        f"rule{n:04d}": Rule(
            text=f"Rule {n}.",
            scope="sql",
            topics=[topic_of(TASK) if n % 2 else "sonnets about the sea"],
            provenance={"outcome": "passed", "rounds": 2},
            usage={"consulted": n, "passed": n},
        ).model_dump(mode="json")
        for n in range(HEAD * 3)
    }
    for rule_id, value in values.items():
        store.put(rules_namespace("sql"), rule_id, value)
    store.batch(ranking_writes("sql", ranked(values.items())))
    store.searched.clear()
    store.read_keys.clear()
    script_pass(models)
    out = run(
        store,
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        memory_context("sql", recall_k=3, distill=False),
    )
    # the most useful of the rules learned on tasks like this one (odd numbers)
    assert [r["id"] for r in out["recalled_rules"]] == ["rule0191", "rule0189", "rule0187"]
    assert store.searched == [(rules_namespace("sql"), POOL)]  # one search, never the scope
    rankings_read = [key for namespace, key in store.read_keys if namespace[1] == "ranking"]
    assert rankings_read == [HEAD_KEY, RANKING_KEY]  # recall's head; usage updates the ranking


def test_usage_recording_keeps_the_ranking_current(models) -> None:
    store = InMemoryStore()
    learn(models, store, "Check the word count before answering.")
    script_pass(models)
    run(store, {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}, memory_context("sql"))
    ranking = store.get(ranking_namespace("sql"), RANKING_KEY)
    [(rule_id, usefulness, _)] = ranking.value["rules"]
    assert usefulness == (1 + 1) / (1 + 2)  # passed 1 of 1 consultation


@pytest.mark.parametrize(
    ("memory", "hints", "steps"),
    [
        (True, {"tone": "Use plain words."}, ["record_rule_usage", "distill"]),
        (True, {}, []),  # nothing to learn, no rule to count
        (False, {"tone": "Use plain words."}, []),
    ],
)
def test_the_memory_steps_run_only_when_they_have_work(
    models, loop_input, memory, hints, steps
) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", *([graded(RUBRIC, hints)] if hints else []), graded(RUBRIC))
    models.script("distill", operations())
    graph = build_graph(checkpointer=InMemorySaver(), store=InMemoryStore())
    updates = list(
        graph.stream(
            loop_input,
            {"configurable": {"thread_id": "t"}},
            context=memory_context("sql", memory=memory),
            stream_mode=["updates", "custom"],
        )
    )
    names = [next(iter(update)) for mode, update in updates if mode == "updates"]
    [finished] = [e for mode, e in updates if mode == "custom" and e["event"] == "finished"]
    assert names[names.index("finalize") + 1 :] == steps
    assert models["distill"].calls == (1 if steps else 0)
    assert finished["learning"] is bool(steps)


def test_every_checkpoint_of_a_run_holds_data_not_python_types(models, loop_input) -> None:
    # what the loop hands the distill subgraph must be plain JSON too: served on its own,
    # the subgraph keeps checkpoints of its input, and any serializer would store (and,
    # loading, construct) project types
    script_fix(models, {"tone": "Use warmer words."}, operations(add("Use warmer words.")))
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
    script_fix(models, {"tone": "Use warmer words."}, operations(add("Use warmer words.")))
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
    from critic_loop.graphs.distill import DistillHandoff
    from critic_loop.state.distill import DistillInput

    # source_thread_id is for past threads distilled on their own; the loop's is its own
    assert set(DistillHandoff.__annotations__) == set(DistillInput.model_fields) - {
        "source_thread_id"
    }
