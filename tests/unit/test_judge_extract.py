"""A small judge copies evidence; code decides (`judge_mode: extract`), and asks it less.

The local 0.5B model answered "met" to nearly every criterion, quoting the artifact back
whole. Asked only to copy the words that show a criterion, it often answers NONE, or
copies words that are not in the artifact at all, when nothing shows it; so the decision
is code's: a short quotation found in the artifact is a pass, anything else is not. With
`lint_checks`, criteria the rubric linter can decide exactly are checked by code and the
judge is not asked about them at all.
"""

from __future__ import annotations

import json
import math

import pytest
from pydantic import ValidationError

from critic_loop.grading import critique_artifact, grade
from critic_loop.nodes.models.gateway import ModelUnreachable, ask_all
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.verifiers.judge import (
    EXTRACT_MAX_TOKENS,
    NOTHING_QUOTED,
    extract_prompt,
    extracted,
    judge_requests,
    judgement_of,
)
from critic_loop.nodes.verifiers.rubric_lint import decided_by_code
from critic_loop.state.budget import Allowance
from critic_loop.state.context import Context
from critic_loop.state.records import Critique
from critic_loop.state.rubric import Criterion
from tests.support.dev_server import free_port
from tests.support.openai_server import (
    ScriptedOpenAIServer,
    Text,
    artifact_of,
    is_structured_request,
)

JACKET = "This jacket is not waterproof, so keep it for dry days. It costs 45 dollars."
PRICE = Criterion(id="price", text="It states a price in dollars.")
SEASON = Criterion(id="season", text="It names a season (spring, summer, autumn or winter).")


def test_a_short_quotation_found_in_the_artifact_passes() -> None:
    [result], _ = extracted("costs 45 dollars", PRICE, JACKET)[0]
    assert result.passed and result.evidence == '"costs 45 dollars"'


@pytest.mark.parametrize(
    ("quote", "why"),
    [
        ("NONE", NOTHING_QUOTED),
        ("", NOTHING_QUOTED),
        ("none.", NOTHING_QUOTED),
        ("spring", "not in the artifact"),  # words of the criterion, not of the artifact
        (JACKET, "whole artifact"),
    ],
)
def test_no_words_words_not_in_the_artifact_or_all_of_it_are_not_met(quote, why) -> None:
    [result], _ = extracted(quote, SEASON, JACKET)[0]
    assert not result.passed and why in result.evidence
    assert result.hint == ""  # no stock line: the worker is told the criterion as an instruction


@pytest.mark.parametrize(
    "reply",
    ['"costs 45 dollars"', "`costs 45 dollars`\nThe price is stated.", "  costs 45 dollars. "],
)
def test_the_reply_is_read_as_its_first_line_without_quotation_marks(reply) -> None:
    [result], _ = extracted(reply, PRICE, JACKET)[0]
    assert result.passed


def test_the_prompt_asks_for_words_of_the_artifact_about_one_criterion() -> None:
    prompt = "\n".join(str(m.content) for m in extract_prompt(PRICE, JACKET, Context()))
    assert "Statement: It states a price in dollars." in prompt and JACKET in prompt
    assert "NONE" in prompt and SEASON.text not in prompt


def copies_the_last_word_of_the_artifact(request: dict) -> Text:
    assert not is_structured_request(request)  # plain words, no schema to fill
    return Text(artifact_of(request).split()[-1])


def test_extract_mode_asks_once_per_criterion_and_code_decides() -> None:
    with ScriptedOpenAIServer(copies_the_last_word_of_the_artifact) as server:
        context = {"critic_model": "openai:scripted", "base_url": server.base_url}
        context |= {"judge_mode": "extract"}
        critique = critique_artifact(JACKET, [PRICE, SEASON], context)
    assert critique.attempts == 2 and len(server.requests) == 2
    assert critique.verdict is not None
    assert [r.passed for r in critique.verdict.results] == [True, True]
    assert critique.verdict.results[0].evidence == '"dollars."'


def test_lint_checks_decide_what_code_can_and_leave_the_judge_the_rest() -> None:
    short = Criterion(id="short", text="It has fewer than ten words.")
    question = Criterion(id="question", text="It asks a question.")
    assert [c.deterministic for c in decided_by_code([short, question, PRICE])] == [
        True,
        True,
        False,
    ]
    with ScriptedOpenAIServer(copies_the_last_word_of_the_artifact) as server:
        context = {"critic_model": "openai:scripted", "base_url": server.base_url}
        context |= {"judge_mode": "extract", "lint_checks": True}
        verdict = grade(JACKET, [short, question, PRICE], context)
    assert len(server.requests) == 1  # the judge is asked about the price alone
    by_id = {r.criterion_id: r for r in verdict.results}
    assert not by_id["short"].passed and by_id["short"].source == "check"
    assert not by_id["question"].passed and by_id["question"].source == "check"
    assert by_id["price"].passed and by_id["price"].source != "check"
    assert by_id["short"].severity == short.severity and by_id["short"].weight == short.weight


def test_the_extracting_judge_is_asked_for_a_few_words_only() -> None:
    with ScriptedOpenAIServer(copies_the_last_word_of_the_artifact) as server:
        context = {"critic_model": "openai:scripted", "base_url": server.base_url}
        grade(JACKET, [PRICE], context | {"judge_mode": "extract"})
    [request] = server.requests
    assert request["max_tokens"] == EXTRACT_MAX_TOKENS


def test_words_not_in_the_artifact_are_asked_for_again_and_none_is_final() -> None:
    replies = iter(["a price in dollars", "45 dollars", "NONE"])
    with ScriptedOpenAIServer(lambda request: Text(next(replies))) as server:
        context = {"critic_model": "openai:scripted", "base_url": server.base_url}
        context |= {"judge_mode": "extract"}
        first = critique_artifact(JACKET, [PRICE], context)
        second = critique_artifact(JACKET, [SEASON], context)
    assert first.attempts == 2 and first.verdict is not None and first.verdict.passed
    assert "not in the artifact" in first.rejected[0]
    retry = server.requests[1]["messages"]
    assert retry[-2]["content"] == "a price in dollars" and "no evidence" in retry[-1]["content"]
    assert second.attempts == 1 and second.verdict is not None and not second.verdict.passed


def test_the_last_attempt_decides_words_not_in_the_artifact_as_not_met() -> None:
    with ScriptedOpenAIServer(lambda request: Text("a price in dollars")) as server:
        context = {"critic_model": "openai:scripted", "base_url": server.base_url}
        critique = critique_artifact(JACKET, [PRICE], context | {"judge_mode": "extract"})
    assert critique.attempts == 3 and critique.verdict is not None
    assert not critique.verdict.passed and "no evidence" in critique.verdict.results[0].evidence


def test_the_extracting_judge_is_held_to_the_runs_budgets() -> None:
    with ScriptedOpenAIServer(copies_the_last_word_of_the_artifact) as server:
        context = Context(
            critic_model="openai:scripted", base_url=server.base_url, judge_mode="extract"
        )
        ledger = Ledger(Allowance(calls=1))
        requests = judge_requests([PRICE, SEASON], JACKET, context)
        judgement = judgement_of([PRICE, SEASON], ask_all(requests, ledger), context)
    assert len(server.requests) == 1 and judgement.calls == 1 and ledger.calls == 1
    assert judgement.stopped == "the call budget ran out"
    assert judgement.results == []  # a judgement cut short does not decide


def test_an_unreachable_extracting_judge_is_named_by_role_and_url() -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    context = Context(critic_model="openai:c", base_url=closed, max_retries=0, judge_mode="extract")
    with pytest.raises(ModelUnreachable) as failed:
        ask_all(judge_requests([PRICE], JACKET, context), Ledger())
    assert (failed.value.role, failed.value.url) == ("critic", f"{closed}/chat/completions")
    assert str(failed.value).startswith(
        f"the critic model 'openai:c' at {closed}/chat/completions cannot be reached ("
    )


def test_the_readmes_season_is_not_passed_on_rain_whoever_named_the_small_model() -> None:
    haiku = "Raindrops fall,\nSilent clouds dance,\nWhispers of rain."
    season = Criterion(id="season", text="It names a season.")
    with ScriptedOpenAIServer(lambda request: Text("rain")) as server:  # the judge quotes "rain"
        named = {"critic_model": "openai:qwen2.5-coder-0.5b-instruct", "base_url": server.base_url}
        verdict = grade(haiku, [season], named)  # the small model's profile: lint checks
        assert grade("Autumn rain falling,\nred leaves float.", [season], named).passed
    [result] = verdict.results
    assert not result.passed and result.source == "check"
    assert server.requests == []  # code decided it: the judge was never asked


@pytest.fixture
def bar(tmp_path, monkeypatch):
    """The scripted critic's judge profile: P(met) 0.6 passes; a quotation is worth 0.15."""
    from critic_loop.nodes.verifiers import judge_profile
    from critic_loop.state.operator_settings import operator_settings

    path = tmp_path / "profile.json"
    profile = {"model": "openai:scripted", "threshold": 0.6, "quote_weight": 0.15}
    path.write_text(json.dumps(profile))
    monkeypatch.setenv("CRITIC_LOOP_JUDGE_PROFILE", str(path))
    operator_settings.cache_clear()
    judge_profile._operators.cache_clear()
    yield
    operator_settings.cache_clear()
    judge_profile._operators.cache_clear()


def asked(p_met: float, words: str = "NONE"):
    """A judge whose yes/no gives `p_met` and who, asked for the words, replies `words`."""

    def answer(request: dict) -> Text:
        if not request.get("logprobs"):
            return Text(words)
        assert request["max_tokens"] == 1 and request["top_logprobs"] >= 2
        top = (("yes", math.log(p_met)), ("no", math.log(1 - p_met)))
        return Text(top[0][0], top_logprobs=top)

    return answer


def judged(artifact: str, criteria: list[Criterion], judge) -> tuple[Critique, int]:
    with ScriptedOpenAIServer(judge) as server:
        context = {"critic_model": "openai:scripted", "base_url": server.base_url}
        critique = critique_artifact(artifact, criteria, context | {"judge_mode": "extract_ask"})
    return critique, len(server.requests)


@pytest.mark.parametrize(("p_met", "passed"), [(0.9, True), (0.2, False)])
def test_a_clear_yes_or_no_decides_with_one_question(bar, p_met, passed) -> None:
    critique, requests = judged(JACKET, [PRICE], asked(p_met, words="NONE"))
    assert requests == critique.attempts == 1  # far from the bar: no words asked for
    assert critique.verdict is not None
    [result] = critique.verdict.results
    assert result.passed is passed and result.p_met == pytest.approx(p_met)
    assert "asked yes or no" in result.evidence


def test_a_reply_of_no_words_is_never_the_end_of_the_question(bar) -> None:
    """The 0.5B judge says NONE of met criteria it cannot quote ("It is written in French.")."""
    critique, _ = judged(JACKET, [PRICE], asked(0.9, words="NONE"))
    assert critique.verdict is not None and critique.verdict.passed


@pytest.mark.parametrize(
    ("words", "passed"),
    [("costs 45 dollars", True), ("NONE", False), ("a price in dollars", False)],
)
def test_near_the_bar_the_judges_words_count(bar, words, passed) -> None:
    """P(met) 0.5 misses 0.6; a quotation of the draft is worth 0.15: 0.65 passes."""
    critique, requests = judged(JACKET, [PRICE], asked(0.5, words=words))
    assert requests == critique.attempts == 2  # the question, then the words
    assert critique.verdict is not None and critique.verdict.passed is passed
    if passed:
        assert critique.verdict.results[0].evidence.startswith('Met: "costs 45 dollars"')


def test_a_whole_artifact_quote_of_a_short_draft_does_not_pass_by_itself(bar) -> None:
    """A short draft quoted whole for "It explains how a hash map finds a value" is no evidence.

    (Under four words, code rules it out before any judge is asked.)
    """
    explains = Criterion(id="how", text="It explains how a hash map finds a value.")
    short = "hash maps find values"
    critique, requests = judged(short, [explains], asked(0.5, words=short))
    assert requests == 2
    assert critique.verdict is not None and not critique.verdict.passed


@pytest.mark.parametrize(
    ("p_met", "words", "passed"),
    [
        (0.65, "NONE", False),  # a yes near the bar, alone: not enough to end a run on
        (0.65, "costs 45 dollars", True),  # a near yes and words of the draft
        (0.8, "NONE", True),  # a clear yes
    ],
)
def test_a_pass_a_run_would_end_on_rests_on_two_signals_or_a_clear_yes(
    bar, p_met, words, passed
) -> None:
    critique, _ = judged(JACKET, [PRICE], asked(p_met, words=words))
    assert critique.verdict is not None and critique.verdict.passed is passed
    if not passed:
        assert "before the run ends on it" in critique.verdict.results[0].evidence


def test_a_near_yes_on_a_draft_that_fails_elsewhere_stands(bar) -> None:
    """Confirmation is for drafts a run would end on: elsewhere a near yes counts as a pass."""
    season = Criterion(id="season", text="It names a season.")
    near, no = asked(0.65), asked(0.2)

    def judge(request: dict) -> Text:
        return (no if "season" in request["messages"][-1]["content"] else near)(request)

    context = {"judge_mode": "extract_ask", "lint_checks": False}
    with ScriptedOpenAIServer(judge) as server:
        critique = critique_artifact(
            JACKET,
            [PRICE, season],
            {"critic_model": "openai:scripted"} | context | {"base_url": server.base_url},
        )
    assert critique.verdict is not None and not critique.verdict.passed
    assert [r.passed for r in critique.verdict.results] == [True, False]


def test_a_judge_profile_is_the_operators_never_a_clients() -> None:
    with pytest.raises(ValidationError, match="judge_profile"):
        Context(judge_profile="/tmp/client.json")  # type: ignore[call-arg]
