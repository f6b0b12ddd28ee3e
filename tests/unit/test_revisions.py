"""A revision is one: it shows no recalled rule, and a reply repeating its draft is asked again."""

from langchain_core.messages import AIMessage

from critic_loop.nodes.loop.generate import worker_prompt
from critic_loop.nodes.loop.worker_turns import UNCHANGED, asked_again, next_turns
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState, RevisionStep, WorkerTurn
from critic_loop.state.records import Critique, Draft, WorkerFeedback
from critic_loop.state.rules import RecalledRule
from critic_loop.state.verdict import Verdict
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded

RULE = "Include 'Order now.'."
HINT = WorkerFeedback(round=1, candidate=1, hints=[RULE])
REVISION = WorkerTurn(
    task="Describe the bottle.",
    round=2,
    mode="revision",
    history=[RevisionStep(round=1, text="A fine bottle.\nOrder now!", feedback=HINT)],
    temperature=0.0,
)


def failed_once() -> LoopState:
    verdict = Verdict.model_validate(graded(RUBRIC, {"tone": RULE}))
    return LoopState(
        task="Describe the bottle.",
        rubric=RUBRIC,
        drafts=[Draft(round=1, text="A fine bottle.")],
        critiques=[Critique(round=1, verdict=verdict)],
        feedback=[HINT],
        recalled_rules=[RecalledRule(id="r1", text=RULE, scope="shop")],
    )


def test_a_revision_shows_no_recalled_rule_and_a_fresh_sample_does() -> None:
    context = Context(memory=False)
    [revision] = next_turns(failed_once(), context, "revision")
    [fresh] = next_turns(failed_once(), context, "resample")
    assert revision.rules == [] and fresh.rules == [RULE]
    prompt = "\n".join(m.text for m in worker_prompt(revision, context))
    assert prompt.count(RULE) == 1  # once, as the change to make: not before the draft too


def again(turn: WorkerTurn, reply: str) -> WorkerTurn | None:
    return asked_again(turn, AIMessage(reply), Context(sample_temperature=0.8))


def test_a_reply_repeating_the_draft_to_revise_is_a_repeat_whitespace_aside() -> None:
    assert again(REVISION, "A fine  bottle. Order now!") is not None
    assert again(REVISION, "A fine bottle. Order now.") is None


def test_only_a_revision_can_repeat_the_draft_it_revises() -> None:
    for mode in ("first", "resample"):
        turn = WorkerTurn(task="Describe the bottle.", round=1, mode=mode, temperature=0.0)
        assert again(turn, "A fine bottle.\nOrder now!") is None


def test_asked_again_is_a_sharper_revision_of_the_same_draft_at_the_sampling_temperature() -> None:
    earlier = RevisionStep(round=1, candidate=2, text="A bottle.", feedback=HINT)
    turn = again(
        REVISION.model_copy(update={"history": [earlier, *REVISION.history]}),
        "A fine  bottle.\nOrder now!",
    )
    assert turn is not None
    assert (turn.round, turn.candidate, turn.mode, turn.temperature) == (2, 1, "revision", 0.8)
    assert turn.history == REVISION.history and turn.revises == REVISION.revises  # that draft only
    prompt = "\n".join(m.text for m in worker_prompt(turn, Context(memory=False)))
    assert UNCHANGED in prompt and RULE in prompt  # told it repeated itself, and the change again
