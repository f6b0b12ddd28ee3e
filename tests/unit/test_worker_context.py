"""The worker's prompt stays bounded as rounds accumulate (compaction in a real run)."""

from langchain_core.messages.utils import count_tokens_approximately

from critic_loop.graphs.app import build_graph
from critic_loop.state.context import Context
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded


def test_worker_prompt_does_not_grow_with_rounds(models, loop_input) -> None:
    rounds = 12
    draft = "word " * 400
    models.script("worker", *[f"draft {n}: {draft}" for n in range(1, rounds + 1)])
    hints = ["simpler", "plainer", "warmer"]  # one criterion keeps failing: no revision regresses
    models.script("critic", *[graded(RUBRIC, {"tone": hints[n % 3]}) for n in range(rounds)])
    context = Context(
        worker_model="scripted:worker",
        critic_model="scripted:critic",
        max_iterations=rounds,
        stall_rounds=rounds,
    )
    out = build_graph().invoke(loop_input, context=context)
    assert out["outcome"] == "exhausted"
    sizes = [count_tokens_approximately(prompt) for prompt in models["worker"].prompts]
    assert max(sizes[1:]) - min(sizes[1:]) < 20  # every revision prompt is the same size
    assert sizes[-1] < 2 * sizes[1]
    latest = models["worker"].prompts[-1]
    assert "draft 11:" in latest[2].text
    assert not any("draft 1:" in m.text for m in latest)
    # the full history is still kept in state
    assert len(out["drafts"]) == rounds
