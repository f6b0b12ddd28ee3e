"""Where the checks of code are thin, a pass is not taken on the first draft's word.

Over real HTTP to the scripted model server: a rubric that only checks syntax draws its
round's candidates at once and keeps the behaviour most of them share on inputs the drafts
give; a rubric with a real test suite pays nothing more when its first draft passes.
"""

import threading
from typing import Any

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.state.context import Context
from tests.support.openai_server import Answer, ScriptedOpenAIServer, Text

pytestmark = pytest.mark.integration

TASK = "Write `double(x)`, which returns twice x."
SYNTAX_ONLY = [{"id": "syntax", "kind": "python_syntax"}]
DOCUMENTED = '```python\ndef double(x):\n    """double(3) -> 6"""\n    return {}\n```'
GREEDY, SAMPLED = DOCUMENTED.format("x + 2"), DOCUMENTED.format("x * 2")
SUITE = """from solution import double


def test_examples():
    assert double(3) == 6
    assert double(0) == 0
    assert double(-2) == -4
"""


def by_temperature(request: dict[str, Any]) -> Answer:
    """The first candidate (temperature 0) adds two; the sampled ones double."""
    return Text(GREEDY if request.get("temperature", 0) == 0 else SAMPLED)


def run(server: ScriptedOpenAIServer, rubric: list[dict[str, Any]]) -> tuple[dict, list]:
    context = Context(
        worker_model="openai:w", critic_model="openai:c", base_url=server.base_url, memory=False
    )
    events, out = [], {}
    for mode, chunk in build_graph().stream(
        {"task": TASK, "rubric": rubric}, context=context, stream_mode=["custom", "values"]
    ):
        events.append(chunk) if mode == "custom" else out.update(chunk)
    return out, events


def test_a_task_with_no_tests_ends_on_the_behaviour_its_candidates_share_not_the_first_pass():
    with ScriptedOpenAIServer(by_temperature) as server:
        out, events = run(server, SYNTAX_ONLY)
    assert out["outcome"] == "passed" and len(out["drafts"]) == 3  # drawn at once, round 1
    assert out["final"] == SAMPLED  # two of three behave so on double(3) and its neighbours
    assert "the checks of code are thin (no tests)" in out["outcome_reason"]
    assert (
        "2 of the round's 3 candidates (this one included) behaved the same"
        in (out["outcome_reason"])
    )
    verdicts = [event for event in events if event["event"] == "verdict"]
    assert [v["agreement"]["support"] for v in verdicts] == [1, 2, 2]
    finished = next(event for event in events if event["event"] == "finished")
    assert "thin (no tests)" in finished["reason"]


def test_a_task_with_a_real_test_suite_pays_no_extra_call_when_its_first_draft_passes():
    suite = [{"id": "examples", "kind": "tests", "tests": SUITE}]
    with ScriptedOpenAIServer(lambda request: Text(SAMPLED)) as server:
        out, _ = run(server, suite)
        calls = len(server.plain_requests())
    assert out["outcome"] == "passed" and calls == 1
    assert "thin" not in out["outcome_reason"]


def test_a_suite_of_one_example_is_thin_too():
    one = SUITE.replace("    assert double(0) == 0\n    assert double(-2) == -4\n", "")
    wrong_elsewhere = DOCUMENTED.format("6 if x == 3 else x")  # passes the example only
    answers = {0: wrong_elsewhere}
    with ScriptedOpenAIServer(lambda r: Text(answers.get(r.get("temperature", 0), SAMPLED))) as s:
        out, _ = run(s, [{"id": "examples", "kind": "tests", "tests": one}])
    assert out["final"] == SAMPLED and "thin (1 test call(s))" in out["outcome_reason"]


def test_passing_candidates_that_disagree_get_one_more_candidate_to_break_the_tie():
    sampled = iter([DOCUMENTED.format("x * 3"), SAMPLED, DOCUMENTED.format("x + x")])
    lock = threading.Lock()

    def worker(request: dict[str, Any]) -> Answer:
        if request.get("temperature", 0) == 0:
            return Text(GREEDY)
        with lock:
            return Text(next(sampled))

    with ScriptedOpenAIServer(worker) as server:
        out, _ = run(server, SYNTAX_ONLY)
    assert [(d["round"], d["candidate"]) for d in out["drafts"]][-1] == (1, 4)
    assert "return x + x" in out["final"] or out["final"] == SAMPLED  # doubling, 2 of 4
    assert "2 of the round's 4 candidates" in out["outcome_reason"]
