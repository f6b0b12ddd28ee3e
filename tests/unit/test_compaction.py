import pytest
from langchain_core.messages import AIMessage, HumanMessage

from critic_loop.nodes.loop.compaction import compact_transcript


def transcript(rounds: int) -> list:
    messages: list = [HumanMessage("task")]
    for n in range(1, rounds + 1):
        messages += [AIMessage(f"draft {n}"), HumanMessage(f"feedback {n}")]
    return messages


def test_first_round_is_just_the_task() -> None:
    assert compact_transcript(transcript(0), 1) == transcript(0)


def test_keeps_task_and_latest_rounds_only() -> None:
    kept = compact_transcript(transcript(5), 2)
    assert [m.text for m in kept] == ["task", "draft 4", "feedback 4", "draft 5", "feedback 5"]


def test_size_does_not_grow_with_rounds() -> None:
    sizes = {len(compact_transcript(transcript(n), 1)) for n in range(1, 50)}
    assert sizes == {3}


def test_alternates_human_and_ai() -> None:
    kept = compact_transcript(transcript(6), 3)
    kinds = [m.type for m in kept]
    assert kinds == ["human", "ai", "human", "ai", "human", "ai", "human"]


def test_keep_must_be_positive() -> None:
    with pytest.raises(ValueError):
        compact_transcript(transcript(2), 0)
