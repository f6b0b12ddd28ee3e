"""What memory learns from a run (lessons) and what it recalls for a task (relevance)."""

import pytest

from critic_loop.nodes.memory.lessons import observed_lessons
from critic_loop.nodes.memory.relevance import (
    relevance,
    topic_of,
    topic_words,
    unquoted,
    with_topic,
)
from critic_loop.nodes.memory.rule_text import (
    anchors,
    invented_words,
    restates,
    says_what_to_do,
)
from critic_loop.state.records import Critique
from critic_loop.state.rubric import Contains, Criterion
from critic_loop.state.verdict import CriterionResult, Verdict

RUBRIC = [
    Contains(id="order_now", kind="contains", phrases=["Order now"]),
    Criterion(id="tone", text="It reads as friendly and plain to a new customer."),
]


def critique(round_number: int, hints: dict[str, str], candidate: int = 1) -> Critique:
    results = [
        CriterionResult(
            criterion_id=criterion.id,
            passed=criterion.id not in hints,
            evidence="e",
            hint=hints.get(criterion.id, ""),
        )
        for criterion in RUBRIC
    ]
    return Critique(round=round_number, candidate=candidate, verdict=Verdict(results=results))


def test_a_check_that_failed_then_passed_gives_its_last_hint_as_a_lesson() -> None:
    critiques = [
        critique(1, {"order_now": "Include 'Order now'.", "tone": "Use plain words."}),
        critique(2, {"order_now": "Include 'Order now' at the end."}),
        critique(3, {}),
    ]
    lessons = observed_lessons(critiques, RUBRIC)
    assert [(lesson.criterion_id, lesson.text) for lesson in lessons] == [
        ("order_now", "Include 'Order now' at the end."),
        ("tone", "Use plain words."),
    ]


def test_what_one_draft_had_instead_is_left_out_of_the_lesson() -> None:
    near = "Include 'Order now'. Near miss: 'Order soon' is there; it must read 'Order now'."
    lessons = observed_lessons([critique(1, {"order_now": near}), critique(2, {})], RUBRIC)
    assert [lesson.text for lesson in lessons] == ["Include 'Order now'."]


def test_criteria_that_passed_at_once_or_never_passed_teach_nothing() -> None:
    assert observed_lessons([critique(1, {})], RUBRIC) == []
    never = [critique(1, {"tone": "Use plain words."}), critique(2, {"tone": "Plainer."})]
    assert observed_lessons(never, RUBRIC) == []


def test_candidates_of_one_round_are_not_a_revision() -> None:
    side_by_side = [critique(1, {"tone": "Use plain words."}, 1), critique(1, {}, 2)]
    assert observed_lessons(side_by_side, RUBRIC) == []


def test_a_hint_that_quotes_the_rubric_is_not_a_lesson() -> None:
    quoting = [
        critique(1, {"tone": "It reads as friendly and plain to a new customer, so fix it."}),
        critique(2, {}),
    ]
    assert observed_lessons(quoting, RUBRIC) == []
    naming = [critique(1, {"order_now": "Fix [order_now] first."}), critique(2, {})]
    assert observed_lessons(naming, RUBRIC) == []


def test_a_judged_failure_without_the_judge_s_own_hint_is_not_a_lesson() -> None:
    """The extracting judge writes no hint (the worker is told the criterion as an
    instruction, which holds criterion text): no rule from it."""
    unhinted = [critique(1, {"tone": ""}), critique(2, {})]
    assert observed_lessons(unhinted, RUBRIC) == []


def test_what_a_rule_must_keep_of_its_lesson() -> None:
    assert anchors("Include 'Order now'.") == ["Order now"]
    assert anchors("Cut it to at most 50 words.") == ["50"]
    assert anchors("Remove the text matching /\\bsorry\\b/ (first at 'sorry').") == ["sorry"]
    assert anchors("Don't say “cheap”.") == ["cheap"]
    assert restates('End every description with "Order now".', "Include 'Order now'.")
    assert not restates("End every description with a call to action.", "Include 'Order now'.")
    assert not restates("Keep it under 150 words.", "Cut it to at most 50 words.")
    assert restates("Keep the tone friendly.", "Use a friendlier tone.")
    assert not restates("Write clearly.", "Use a friendlier tone.")
    # the quote alone, as the 0.5B model once "generalised" it, says nothing to do
    assert restates("Order now at Tidewater.", "Include 'Order now at Tidewater'.")
    assert not says_what_to_do("Order now at Tidewater.", "Include 'Order now at Tidewater'.")
    assert says_what_to_do(
        "Close with 'Order now at Tidewater'.", "Include 'Order now at Tidewater'."
    )


SHOP = "Write a short product description of a stainless steel water bottle for our shop."


def test_a_rule_may_use_the_words_of_its_lesson_the_task_and_instructions_only() -> None:
    lesson = ["Include 'Order now'."]
    general = "End every product description with 'Order now'."
    assert invented_words(general, lesson, SHOP) == []
    # the frame of the prompt's example, copied by a small model
    assert invented_words("Sign every email with 'Order now'.", lesson, SHOP) == ["sign", "email"]
    sorry = ["Remove or rewrite the text matching /\\bsorry\\b/ (first at 'sorry')."]
    assert invented_words("Never write 'sorry' to a customer.", sorry, "Reply to a customer.") == []


@pytest.mark.parametrize(
    ("task", "related"),
    [
        ("Write a short product description of wool hiking socks for our shop.", True),
        ("Describe our folding camp chair for its product page in the shop.", True),
        ("Write a haiku about autumn rain.", False),
        ("List three European capital cities, one per line.", False),
        ("Write a Python function that returns the median of a list.", False),
    ],
)
def test_a_rule_is_relevant_to_tasks_like_those_it_was_learned_on(task, related) -> None:
    rule = {"text": "Include 'Order now'.", "topics": [topic_of(SHOP)]}
    assert (relevance(topic_words(task), rule) >= 0.25) is related


def test_a_rule_s_quoted_phrase_says_what_to_write_not_what_the_task_is_about() -> None:
    # the memory benchmark's shop rule reached a support reply about an order through
    # the word "order" of its closing line
    rule = {"text": "Include 'Order now at Tidewater'.", "topics": [topic_of(SHOP)]}
    refund = "Reply to a customer who was charged twice for the same order."
    assert relevance(topic_words(refund), rule) < 0.25
    unquoted_rule = {"text": "Mention the customer's order number in every reply."}
    assert relevance(topic_words(refund), unquoted_rule) >= 0.25  # its own words still count
    assert unquoted("Don't say 'sorry' or \"oops\" to a customer's face.") == (
        "Don't say   or   to a customer's face."
    )


def test_a_topic_is_the_task_s_content_words_and_topics_keep_the_latest() -> None:
    assert topic_of(SHOP) == "product description stainless steel water bottle shop"
    assert with_topic(["a", "b", "c"], "b", limit=3) == ["a", "c", "b"]
    assert with_topic(["a", "b", "c"], "d", limit=3) == ["b", "c", "d"]
    assert relevance(topic_words(SHOP), {"text": "x y"}) == 0.0  # no topics, unrelated text
