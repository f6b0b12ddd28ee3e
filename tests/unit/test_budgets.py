"""Run budgets: what a run spent is read from its history; the route ends it when spent."""

from critic_loop.nodes.loop.stopping import Decision, decide
from critic_loop.nodes.loop.worker_turns import first_turns
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.state.budget import Allowance, Spent, allowance, exhausted, spent_on
from critic_loop.state.context import Context
from critic_loop.state.records import Critique, Draft, TokenUsage
from critic_loop.state.rules import MemoryReport
from critic_loop.state.verdict import CriterionResult, Verdict
from tests.support.rubrics import TASK


def verdict(*failing: str) -> Verdict:
    results = [
        CriterionResult(criterion_id=cid, passed=cid not in failing, evidence='"x"')
        for cid in ("tone", "length")
    ]
    return Verdict(results=results)


def draft(round_number: int, candidate: int = 1, **fields: object) -> Draft:
    return Draft(round=round_number, candidate=candidate, text=f"draft {round_number}", **fields)


def graded(round_number: int, *failing: str, **fields: object) -> Critique:
    return Critique(round=round_number, verdict=verdict(*failing), **fields)


def test_what_a_run_spent_is_read_from_its_records() -> None:
    usage = TokenUsage(input_tokens=100, output_tokens=20)
    drafts = [
        draft(1, 1, attempts=2, usage=usage, seconds=3.0),
        draft(1, 2, attempts=1, usage=usage, seconds=5.0),  # side by side: the longer counts
        draft(2, attempts=1, usage=usage, seconds=1.0),
    ]
    critiques = [
        graded(1, "tone", attempts=6, usage=usage, seconds=2.0),
        graded(1, "tone", attempts=0, seconds=2.0),
        graded(2, "tone", attempts=3, usage=usage, seconds=1.5),
    ]
    memory = MemoryReport(scope="s", calls=2, usage=usage)
    assert spent_on(drafts, critiques) == Spent(calls=13, tokens=600, seconds=9.5)
    assert spent_on(drafts, critiques, memory) == Spent(calls=15, tokens=720, seconds=9.5)


def test_each_budget_says_it_ran_out() -> None:
    spent = Spent(calls=10, tokens=5000, seconds=60.0)
    assert exhausted(spent, Context()) is None
    assert exhausted(spent, Context(call_budget=10)) == (
        "call_budget",
        "the call budget ran out: 10 model call(s) of 10",
    )
    assert exhausted(spent, Context(token_budget=4000)).budget == "token_budget"
    assert exhausted(spent, Context(time_budget_seconds=60)).reason == (
        "the time budget ran out: 60.0 s of 60 s"
    )
    assert allowance(spent, Context(call_budget=25, token_budget=4000)) == Allowance(
        calls=15, tokens=0, seconds=None, largest_prompt=4000
    )


def test_a_spent_budget_ends_the_run_as_exhausted_naming_it() -> None:
    drafts = [draft(1, attempts=1), draft(2, attempts=1)]
    critiques = [graded(1, "tone", attempts=1), graded(2, "tone", attempts=1)]
    assert decide(critiques, drafts, Context(call_budget=5, stall_rounds=3)).action == "revision"
    ended = decide(critiques, drafts, Context(call_budget=4))
    assert ended == Decision(
        "exhausted",
        "the call budget ran out: 4 model call(s) of 4, without a pass",
        "call_budget",
    )


def test_a_pass_on_the_last_call_is_a_pass() -> None:
    critiques = [graded(1, "tone", attempts=1), graded(2, attempts=1)]
    drafts = [draft(1), draft(2)]
    assert decide(critiques, drafts, Context(call_budget=4)).outcome == "passed"


def test_a_round_whose_every_turn_the_budget_stopped_ends_the_run() -> None:
    why = "the time budget ran out"
    drafts = [draft(1, seconds=3.0), Draft(round=2, text="", attempts=0, seconds=2.0, stopped=why)]
    critiques = [graded(1, "tone", seconds=1.0), Critique(round=2, attempts=0, stopped=why)]
    ended = decide(critiques, drafts, Context(time_budget_seconds=5))
    assert isinstance(ended, Decision) and ended.exhausted_by == "time_budget_seconds"
    assert ended.reason == "the time budget ran out: 6.0 s of 5 s, without a pass"


def test_round_one_drafts_no_more_candidates_than_the_call_budget_allows() -> None:
    turns = first_turns(TASK, [], Context(candidates=8, call_budget=3))
    assert [turn.allowance.calls for turn in turns] == [1, 1, 1]
    turns = first_turns(TASK, [], Context(candidates=3, call_budget=10))
    assert [turn.allowance.calls for turn in turns] == [3, 3, 3]
    assert [t.allowance for t in first_turns(TASK, [], Context(candidates=2))] == [Allowance()] * 2


def test_a_ledger_admits_calls_until_its_allowance_is_used() -> None:
    ledger = Ledger(Allowance(calls=2))
    assert [ledger.admit(), ledger.admit(), ledger.admit()] == [
        None,
        None,
        "the call budget ran out",
    ]
    assert ledger.calls == 2
    tokens = Ledger(Allowance(tokens=100))
    assert tokens.admit() is None
    tokens.settle(usage=TokenUsage(input_tokens=90, output_tokens=10))
    assert tokens.admit() == "the token budget ran out"
    assert Ledger(Allowance(seconds=0)).admit() == "the time budget ran out"


def test_calls_side_by_side_stop_once_their_prompts_fill_the_token_budget() -> None:
    ledger = Ledger(Allowance(tokens=1000))
    admitted = [ledger.admit(prompt_tokens=300) for _ in range(6)]  # none has answered yet
    assert admitted == [None] * 4 + ["the token budget ran out"] * 2
    for _ in range(4):
        ledger.settle(300, TokenUsage(input_tokens=250, output_tokens=10))
    assert (ledger.reserved, ledger.usage.input_tokens, ledger.admit()) == (
        0,
        1000,
        ("the token budget ran out"),
    )
