"""What makes the loop beat one shot: candidates, fresh samples, no regressions, real evidence."""

from collections.abc import Callable

from langchain_core.messages import AIMessage, BaseMessage

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.loop.worker_turns import UNCHANGED
from tests.support.contexts import scripted_context
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import ARTIFACT, graded

INPUT = {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}


def artifact(messages: list[BaseMessage]) -> str:
    found = ARTIFACT.search("\n".join(m.text for m in messages))
    return found.group(2).strip() if found else ""


def grade_by_text(failing: dict[str, dict[str, str]]) -> Callable[[list[BaseMessage]], dict]:
    """A critic that fails, for each draft text, the criteria `failing[text]` names."""
    return lambda messages: graded(RUBRIC, failing.get(artifact(messages), {}))


def run(**settings: object) -> dict:
    return build_graph().invoke(INPUT, context=scripted_context(**settings))


def ai_turns(prompt: list[BaseMessage]) -> list[str]:
    return [m.text for m in prompt if isinstance(m, AIMessage)]


# --- evidence that is evidence ------------------------------------------------------


def test_a_pass_restating_the_criterion_is_rejected_and_retried(models) -> None:
    lenient = graded(RUBRIC)
    lenient["results"][2]["evidence"] = RUBRIC[2].text  # "The answer is written for a ..."
    models.script("worker", "A hash map stores values under keys.")
    models.script("critic", lenient, graded(RUBRIC))
    out = run()
    assert out["outcome"] == "passed"
    [critique] = out["critiques"]
    assert critique["attempts"] == 2
    assert "criterion 'tone' passed without quoting the artifact" in critique["rejected"][0]


def test_a_pass_the_judge_never_grounds_counts_as_not_met_and_the_run_goes_on(models) -> None:
    invented = graded(RUBRIC)
    invented["results"][1]["evidence"] = 'It says "for example, a phone book maps names".'
    invented["results"][0]["evidence"] = "The artifact is everything between the two markers."
    models.script(
        "worker",
        "A hash map stores values under keys.",
        "A better draft, with a phone book as its example.",
    )
    models.script("critic", invented, invented, invented, graded(RUBRIC))
    out = run()
    assert out["outcome"] == "passed" and out["final_round"] == 2
    first = out["critiques"][0]
    assert first["error"] is None and first["attempts"] == 3
    assert len(first["rejected"]) == 3
    assert "'length' passed without quoting" in first["rejected"][0]
    assert "'example' passed but its quotation is not in the artifact" in first["rejected"][0]
    results = {r["criterion_id"]: r for r in first["verdict"]["results"]}
    assert not results["length"]["passed"] and not results["example"]["passed"]
    assert results["length"]["evidence"].startswith("Not met: the judge passed this without")
    assert results["tone"]["passed"]  # its pass quoted the draft
    revision = models["worker"].prompts[1]
    assert "phone book" not in str(revision)  # the unverified evidence never reaches the worker


def test_a_failing_result_needs_no_quotation(models) -> None:
    models.script("worker", "draft one", "draft two")
    models.script("critic", graded(RUBRIC, {"tone": "Use plainer words."}), graded(RUBRIC))
    assert run()["critiques"][0]["attempts"] == 1


# --- parallel candidates ------------------------------------------------------------


def test_three_candidates_are_graded_and_round_two_revises_the_best(models) -> None:
    failing = {
        "candidate A": {"tone": "x", "example": "y"},
        "candidate B": {"tone": "x"},  # the best: one failure
        "candidate C": {"tone": "x", "length": "z"},
    }
    judge = grade_by_text(failing)
    models.script("worker", "candidate A", "candidate B", "candidate C", "B revised")
    models.script("critic", judge, judge, judge, judge)
    out = run(candidates=3, max_iterations=3)
    first_round = [d for d in out["drafts"] if d["round"] == 1]
    assert sorted(d["text"] for d in first_round) == ["candidate A", "candidate B", "candidate C"]
    assert sorted(d["candidate"] for d in first_round) == [1, 2, 3]
    graded_first = [c for c in out["critiques"] if c["round"] == 1]
    assert sorted(c["candidate"] for c in graded_first) == [1, 2, 3]
    assert all(c["verdict"] for c in graded_first)
    best = next(d for d in first_round if d["text"] == "candidate B")
    revision = out["drafts"][-1]
    assert revision["round"] == 2 and revision["origin"] == "revision"
    assert revision["revises"] == {"round": 1, "candidate": best["candidate"]}
    assert ai_turns(models["worker"].prompts[-1]) == ["candidate B"]
    assert out["outcome"] == "passed" and out["final"] == "B revised"


def test_checks_decide_between_candidates_before_the_judge_is_asked(models) -> None:
    rubric = [
        {"id": "short", "kind": "word_count", "max": 5},
        {"id": "clear", "text": "It is clear."},
    ]
    models.script(
        "worker", "far too many words in this one", "two words", "also too many words here ok"
    )
    models.script("critic", graded(rubric[1:]))
    out = build_graph().invoke(
        {"task": TASK, "rubric": rubric}, context=scripted_context(candidates=3)
    )
    assert models["critic"].calls == 1  # only the candidate the check left in contention
    assert out["outcome"] == "passed" and out["final"] == "two words"
    behind = [c for c in out["critiques"] if c["verdict"]["results"][1]["skipped"]]
    assert len(behind) == 2
    assert (
        "another candidate did better on the checks"
        in behind[0]["verdict"]["results"][1]["evidence"]
    )


def test_candidates_after_the_first_use_the_sample_temperature(models) -> None:
    temperatures = []

    def factory(model: str, *, temperature: float, **settings: object):
        if model == "worker":
            temperatures.append(temperature)
        return models[model]

    from critic_loop.nodes.models.provider_registry import register_chat_model_provider

    register_chat_model_provider("scripted", factory)
    models.script("worker", "one", "two", "three")
    models.script("critic", graded(RUBRIC), graded(RUBRIC), graded(RUBRIC))
    run(candidates=3, temperature=0.0, sample_temperature=1.1)
    assert sorted(temperatures[-3:]) == [0.0, 1.1, 1.1]  # after the preflight's check


# --- fresh samples when revising stalls ----------------------------------------------


def test_a_stalled_loop_draws_a_fresh_draft_that_sees_no_earlier_draft(models) -> None:
    models.script("worker", "attempt one", "attempt two", "attempt three", "fresh attempt")
    same = graded(RUBRIC, {"tone": "Use plainer words."})
    models.script("critic", same, same, same, graded(RUBRIC))
    out = run(stall_rounds=3, max_iterations=6)
    fresh = out["drafts"][3]
    assert fresh["origin"] == "resample" and fresh["revises"] is None
    prompt = models["worker"].prompts[3]
    text = "\n".join(m.text for m in prompt)
    assert not ai_turns(prompt)
    assert not any(earlier in text for earlier in ("attempt one", "attempt two", "attempt three"))
    assert "Use plainer words." in text  # what earlier attempts failed, in a line
    assert out["outcome"] == "passed" and out["final"] == "fresh attempt"


def test_on_stall_stop_ends_the_run_as_stalled(models) -> None:
    models.script("worker", "a", "b", "c")
    same = graded(RUBRIC, {"tone": "x"})
    models.script("critic", same, same, same)
    assert run(stall_rounds=3, on_stall="stop")["outcome"] == "stalled"


def test_a_revision_repeating_its_draft_is_asked_again_as_a_sharper_revision(models) -> None:
    models.script("worker", "the same text", "the  same\ntext", "something new")
    models.script("critic", graded(RUBRIC, {"tone": "Use plainer words."}), graded(RUBRIC))
    out = run(max_iterations=5)
    assert out["outcome"] == "passed" and out["final_round"] == 2
    second = out["drafts"][1]
    revised = {"round": 1, "candidate": 1}
    assert (second["round"], second["origin"], second["revises"]) == (2, "revision", revised)
    assert second["attempts"] == 2  # the repeat and the sharper revision: two calls, one round
    again = models["worker"].prompts[2]
    assert ai_turns(again) == ["the same text"]
    assert UNCHANGED in again[-1].text and "Use plainer words." in again[-1].text


def test_a_draft_repeated_again_is_not_graded_again_and_triggers_a_fresh_sample(models) -> None:
    models.script("worker", "the same text", "the  same\ntext", "the same text", "something new")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC))
    out = run(max_iterations=5)
    repeat = out["critiques"][1]
    assert repeat["duplicate_of"] == {"round": 1, "candidate": 1}
    assert repeat["attempts"] == 0
    assert models["critic"].calls == 2  # the repeat cost no judge call
    assert out["drafts"][2]["origin"] == "resample"
    assert out["outcome"] == "passed"


# --- no regressions ------------------------------------------------------------------


def test_after_a_regression_the_worker_revises_the_best_draft_with_a_warning(models) -> None:
    models.script("worker", "draft 1", "draft 2", "draft 3", "draft 4")
    models.script(
        "critic",
        graded(RUBRIC, {"tone": "a", "example": "b"}),
        graded(RUBRIC, {"tone": "Use plainer words."}),  # the best so far
        graded(RUBRIC, {"tone": "c", "example": "Bring the example back.", "length": "d"}),
        graded(RUBRIC),
    )
    out = run(max_iterations=5, stall_rounds=4)
    round_four = models["worker"].prompts[3]
    assert ai_turns(round_four) == ["draft 2"]
    instruction = round_four[-1].text
    assert "did worse than the version below" in instruction
    assert "Bring the example back." in instruction  # what went wrong in round 3
    assert "Use plainer words." in instruction  # the feedback on draft 2 itself
    assert out["drafts"][3]["revises"] == {"round": 2, "candidate": 1}
    assert out["final"] == "draft 4"


async def test_candidates_are_drafted_side_by_side_under_ainvoke(models) -> None:
    judge = grade_by_text({"one": {"tone": "x"}, "three": {"tone": "x", "length": "y"}})
    models.script("worker", "one", "two", "three")
    models.script("critic", judge, judge, judge)
    out = await build_graph().ainvoke(INPUT, context=scripted_context(candidates=3))
    assert out["outcome"] == "passed" and out["final"] == "two"
    assert len(out["drafts"]) == len(out["critiques"]) == 3
