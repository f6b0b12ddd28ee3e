"""Objective/rubric separation: the worker never sees criteria; the critic never sees the
worker's conversation."""

from langchain_core.messages import HumanMessage

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.verifiers.statements import as_instruction
from critic_loop.state.loop import CriticView, RevisionStep, WorkerTurn
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

DRAFTS = ["FIRST-DRAFT-7f3a", "SECOND-DRAFT-91bc", "THIRD-DRAFT-c2d8"]


def run_three_rounds(models, context, loop_input, *, echo_criteria: bool) -> dict:
    """Three rounds in which the critic (optionally) quotes criteria in its feedback."""
    models.script("worker", *DRAFTS)
    fails = {
        c.id: (f"Criterion says: {c.text}" if echo_criteria else f"fix {c.id}") for c in RUBRIC
    }
    models.script(
        "critic",
        graded(RUBRIC, fails, feedback="; ".join(c.text for c in RUBRIC) if echo_criteria else "x"),
        graded(RUBRIC, {"tone": fails["tone"]}),
        graded(RUBRIC),
    )
    return build_graph().invoke(loop_input, context=context)


def test_worker_node_input_schema_has_no_rubric() -> None:
    graph = build_graph()
    schema = graph.builder.nodes["generate"].input_schema
    assert schema is WorkerTurn
    fields = {*WorkerTurn.model_fields, *RevisionStep.model_fields}
    assert "rubric" not in fields
    assert not {"critiques", "verdict", "results"} & fields  # verdicts stay on the critic's side


def test_critic_node_input_schema_has_no_worker_conversation() -> None:
    graph = build_graph()
    assert graph.builder.nodes["critique"].input_schema is CriticView
    assert not {"task", "feedback", "history", "rules"} & set(CriticView.model_fields)


def test_worker_model_never_receives_the_rubric_only_what_failed_as_instructions(
    models, context, loop_input
) -> None:
    out = run_three_rounds(models, context, loop_input, echo_criteria=True)
    assert out["outcome"] == "passed"
    worker_prompts = models["worker"].texts()
    assert len(worker_prompts) == 3
    told = [as_instruction(criterion.text) for criterion in RUBRIC]
    assert not any(instruction in worker_prompts[0] for instruction in told)  # before a failure
    for prompt in worker_prompts:
        # a failed criterion reaches the worker as an instruction, and only so: the judge's
        # echoes of criterion text were cut out of its note and hints
        rest = prompt
        for instruction in told:
            rest = rest.replace(instruction, "")
        for criterion in RUBRIC:
            assert criterion.text.lower() not in rest.lower()
    assert all(instruction in worker_prompts[1] for instruction in told)  # round 1 failed all
    assert "a review requirement" in worker_prompts[1]  # the judge's echo, cut out


def test_critic_model_never_receives_the_workers_messages(models, context, loop_input) -> None:
    run_three_rounds(models, context, loop_input, echo_criteria=False)
    critic_prompts = models["critic"].texts()
    assert len(critic_prompts) == 3
    worker_said = [m.text for m in models["worker"].prompts[2] if isinstance(m, HumanMessage)]
    for n, prompt in enumerate(critic_prompts):
        assert DRAFTS[n] in prompt  # the draft under review
        assert all(other not in prompt for other in DRAFTS if other != DRAFTS[n])
        assert TASK not in prompt
        for message in worker_said:
            assert message not in prompt
        assert "You are the author" not in prompt


def test_round_n_worker_prompt_holds_the_previous_draft_and_its_critique(
    models, context, loop_input
) -> None:
    models.script("worker", *DRAFTS)
    models.script(
        "critic",
        graded(
            RUBRIC,
            {"example": "Add a phone-book example.", "tone": "Use simpler words."},
            feedback="Needs an example.",
        ),
        graded(RUBRIC, {"tone": "Replace jargon with plain words."}, feedback="Too technical."),
        graded(RUBRIC),
    )
    build_graph().invoke(loop_input, context=context)
    first, second, third = models["worker"].prompts
    assert TASK in first[-1].text and len(first) == 2  # system + task
    # round 2: the task, draft 1 as the worker's own turn, then the critique of draft 1
    assert [m.type for m in second] == ["system", "human", "ai", "human"]
    assert second[2].text == DRAFTS[0]
    assert "Needs an example." in second[3].text
    assert "Add a phone-book example." in second[3].text
    # round 3: revises draft 2 with the critique of draft 2
    assert third[2].text == DRAFTS[1]
    assert "Too technical." in third[3].text
    assert "Replace jargon with plain words." in third[3].text
    assert "Needs an example." not in third[3].text


def test_rules_learned_from_the_critics_hints_never_carry_criterion_text(models, context) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from critic_loop.state.rules import rules_namespace

    store = InMemoryStore()
    graph = build_graph(checkpointer=InMemorySaver(), store=store)
    rubric = [c.model_dump() for c in RUBRIC]
    context = context.model_copy(update={"distill_model": "scripted:distill"})
    # round 1 fails every criterion; two hints quote their criterion, one is a clean lesson
    echoed = {c.id: f"Criterion says: {c.text}" for c in RUBRIC}
    echoed["example"] = "Add a phone-book example."
    models.script("worker", *DRAFTS[:2])
    models.script("critic", graded(RUBRIC, echoed), graded(RUBRIC))
    quoting = {"action": "add", "rule_id": "", "criteria": [], "reason": "r"}
    models.script(  # the distiller tries to slip the criteria in as rules
        "distill",
        {"operations": [{**quoting, "text": f"Add an example: {c.text}"} for c in RUBRIC]},
    )
    first = graph.invoke(
        {"task": TASK, "rubric": rubric}, {"configurable": {"thread_id": "a"}}, context=context
    )
    assert first["memory_report"]["lessons"] == ["Add a phone-book example."]
    stored = [item.value["text"] for item in store.search(rules_namespace("default"))]
    assert stored == ["Add a phone-book example."]

    models.script("worker", "a draft")
    models.script("critic", graded(RUBRIC))
    second = graph.invoke(
        {"task": TASK, "rubric": rubric}, {"configurable": {"thread_id": "b"}}, context=context
    )
    assert [rule["text"] for rule in second["recalled_rules"]] == stored
    prompt = models["worker"].texts()[-1]
    assert "Add a phone-book example." in prompt  # the rule reached the worker...
    for criterion in RUBRIC:  # ...and no criterion's text did
        assert criterion.text.lower() not in prompt.lower()
