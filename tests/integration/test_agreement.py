"""Agreement: when several candidates pass thin tests, the behaviour most of them share wins.

The candidates run in the real sandbox (the `tests` criterion's), so these are
integration tests; the worker is scripted.
"""

import asyncio
import shutil

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.operator_policy import Trust
from critic_loop.nodes.verifiers.agreement import (
    DERIVED_INPUTS,
    Grouping,
    abehaviour_groups,
    behaviour_groups,
    probe_inputs,
    variants_of,
)
from critic_loop.sandbox import isolation as sandbox
from critic_loop.state.errors import IsolationUnavailable
from critic_loop.state.operator_settings import Ceilings, OperatorSettings
from critic_loop.state.rubric import TestSuite
from tests.support.contexts import scripted_context

VISIBLE = """\
from solution import compact


def test_runs_are_counted():
    assert compact("aaabcc") == "a3bc2"
"""

SUITE = TestSuite(id="examples", kind="tests", tests=VISIBLE, timeout_seconds=30)
RUBRIC = [SUITE.model_dump(exclude_none=True)]
TASK = "Write compact(s): each run of a character becomes the character and its count (> 1)."

HARD_CODED = 'def compact(s):\n    return "a3bc2"\n'
LOOPS = """\
```python
def compact(s):
    out, i = [], 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(s[i] + (str(j - i) if j - i > 1 else ""))
        i = j
    return "".join(out)
```
"""
GROUPBY = """\
```python
from itertools import groupby


def compact(s):
    return "".join(k + (str(n) if (n := len(list(g))) > 1 else "") for k, g in groupby(s))
```
"""
REVERSED = "def compact(s):\n    return s[::-1]\n"
WRITES_A_FILE = """\
```python
from itertools import groupby


def compact(s):
    with open("scratch.bin", "wb") as scratch:
        scratch.write(bytes(2 * 1024 * 1024))  # 2 MiB, then the same answer as GROUPBY
    return "".join(k + (str(n) if (n := len(list(g))) > 1 else "") for k, g in groupby(s))
```
"""


def operator_with(**ceilings: int) -> Trust:
    return Trust(served=False, settings=OperatorSettings(ceilings=Ceilings(**ceilings)))


def test_further_inputs_vary_the_examples_arguments_and_leave_the_examples_out() -> None:
    probes = probe_inputs(SUITE)
    arguments = [probe.args for probe in probes]
    assert ("",) in arguments and ("aaabcc"[::-1],) in arguments
    assert ("aaabcc",) not in arguments  # every passing candidate already agrees there
    assert all(probe.function == "compact" for probe in probes)
    assert variants_of(True) == [False]
    assert [0, 1] in variants_of([1, 0])  # sorted


def test_candidates_are_grouped_by_what_they_return_on_the_further_inputs() -> None:
    grouping = behaviour_groups(SUITE, [HARD_CODED, LOOPS, GROUPBY])
    assert grouping is not None and grouping.probes == len(probe_inputs(SUITE))
    assert grouping.group == [0, 1, 1]
    assert [grouping.support(index) for index in range(3)] == [1, 2, 2]


def test_without_literal_calls_only_the_drafts_can_suggest_inputs() -> None:
    opaque = SUITE.model_copy(update={"tests": "def test_nothing():\n    assert True\n"})
    grouping = behaviour_groups(opaque, [LOOPS, GROUPBY])  # `s[j]`: a sequence is passed
    assert grouping is not None and grouping.group == [0, 0]
    assert behaviour_groups(opaque, [HARD_CODED, REVERSED]) is None  # nothing to go on


def test_of_the_passing_candidates_the_one_most_others_agree_with_is_chosen(models) -> None:
    models.script("worker", HARD_CODED, LOOPS, GROUPBY)
    out = build_graph().invoke(
        {"task": TASK, "rubric": RUBRIC}, context=scripted_context(candidates=3)
    )
    assert out["outcome"] == "passed"
    assert out["final"] in (LOOPS, GROUPBY)  # never the hard-coded answer
    support = {c["candidate"]: c["agreement"]["support"] for c in out["critiques"]}
    texts = {d["candidate"]: d["text"] for d in out["drafts"]}
    assert {texts[n]: support[n] for n in support} == {HARD_CODED: 1, LOOPS: 2, GROUPBY: 2}
    chosen = next(c for c in out["critiques"] if texts[c["candidate"]] == out["final"])
    evidence = chosen["verdict"]["results"][0]["evidence"]
    assert "2 of the round's 3 candidates (this one included) behaved the same" in evidence


def test_agreement_never_passes_a_candidate_that_fails_the_visible_tests(models) -> None:
    models.script("worker", HARD_CODED, REVERSED, REVERSED.replace("s[::-1]", "s[::-1][:]"))
    out = build_graph().invoke(
        {"task": TASK, "rubric": RUBRIC}, context=scripted_context(candidates=3)
    )
    assert out["outcome"] == "passed" and out["final"] == HARD_CODED
    passed = [c["candidate"] for c in out["critiques"] if c["verdict"]["passed"]]
    texts = {d["candidate"]: d["text"] for d in out["drafts"]}
    assert [texts[n] for n in passed] == [HARD_CODED]  # the two that agree still fail
    assert all(c["agreement"] is None for c in out["critiques"])  # one passer: nothing to rank


def test_calls_with_list_arguments_are_probed_too() -> None:
    tests = "from solution import top\n\n\ndef test_top():\n    assert top([3, 1, 2]) == 3\n"
    suite = SUITE.model_copy(update={"tests": tests})
    probes = probe_inputs(suite)
    assert ([],) in [probe.args for probe in probes] and ([2, 1, 3],) in [p.args for p in probes]


def test_the_candidates_run_within_the_operators_ceilings_as_the_tests_criterion_does() -> None:
    """The suite leaves `max_file_mb` at its default (64): the ceiling lowers it here too."""
    assert "max_file_mb" not in SUITE.model_fields_set
    under_a_low_ceiling = operator_with(test_max_file_mb=1)
    held = behaviour_groups(SUITE, [GROUPBY, WRITES_A_FILE], under_a_low_ceiling)
    assert held is not None and held.group == [0, 1]  # the 2 MiB file is refused there
    assert behaviour_groups(SUITE, [GROUPBY, WRITES_A_FILE], operator_with()) == (
        Grouping(held.probes, [0, 0])  # the default ceiling (64 MiB) lets it write
    )


@pytest.fixture
def no_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    found = sandbox.probe(None, shutil.which("unshare"))
    monkeypatch.setattr(sandbox, "isolation", lambda: found)
    monkeypatch.delenv(sandbox.REQUIRE_VARIABLE, raising=False)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_served_run_compares_candidates_only_in_the_complete_sandbox(
    mode: str, no_bubblewrap: None
) -> None:
    drafts, served = [LOOPS, GROUPBY], Trust(served=True, settings=OperatorSettings())
    with pytest.raises(IsolationUnavailable, match="bubblewrap"):
        if mode == "sync":
            behaviour_groups(SUITE, drafts, served)
        else:
            asyncio.run(abehaviour_groups(SUITE, drafts, served))


def test_candidates_differing_only_on_a_few_inputs_the_task_rules_out_behave_the_same() -> None:
    documented = '    """to_binary(15) -> "1111"; to_binary(32) -> "100000"."""\n'
    with_bin = "def to_binary(n):\n" + documented + "    return bin(n)[2:]\n"
    by_hand = (
        "def to_binary(n):\n" + documented + "    digits = ''\n    while n > 0:\n"
        "        digits, n = str(n % 2) + digits, n // 2\n    return digits or '0'\n"
    )  # the same for n >= 0; not for the negative inputs varied from 9, 15 and 32
    octal = "def to_binary(n):\n    return oct(n)[2:]\n"
    tests = (
        "from solution import to_binary\n\n\ndef test_it():\n    assert to_binary(9) == '1001'\n"
    )
    suite = TestSuite(id="examples", kind="tests", tests=tests, timeout_seconds=30)
    grouping = behaviour_groups(suite, [with_bin, by_hand, octal])
    assert grouping is not None and grouping.group == [0, 0, 2]


def test_a_rubric_that_runs_no_code_is_compared_only_where_a_served_run_may_run_code(
    no_bubblewrap: None,
) -> None:
    served = Trust(served=True, settings=OperatorSettings())
    assert behaviour_groups(DERIVED_INPUTS, [LOOPS, GROUPBY], served) is None  # no error either
    allowed = OperatorSettings(
        allow_incomplete_sandbox=True, ceilings=Ceilings(test_timeout_seconds=5)
    )
    grouping = behaviour_groups(DERIVED_INPUTS, [LOOPS, GROUPBY], Trust(True, allowed))
    assert grouping is not None and grouping.group == [0, 0]  # its limit held to the ceiling
