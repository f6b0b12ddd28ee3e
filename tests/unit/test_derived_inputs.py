"""Inputs read from the drafts: their documented calls, given values and type hints."""

from critic_loop.nodes.verifiers.agreement import DERIVED_INPUTS, probe_inputs
from critic_loop.nodes.verifiers.derived_inputs import documented_calls, entry_points

PLUCK = '''```python
def is_even(n):
    return n % 2 == 0


def pluck(arr):
    """Example 1:
        Input: [4,2,3]
        Output: [2, 1]
    Example 2:
        Input: []
    """
    evens = [x for x in arr if is_even(x)]
    return [] if not evens else [min(evens), arr.index(min(evens))]
```'''
FRUIT = '''def fruit_distribution(s, n):
    """fruit_distribution("5 apples and 6 oranges", 19) -> 8
    For s = "0 apples and 1 oranges", n = 3, the result is 2."""
    return n
'''


def test_the_entry_is_the_function_no_other_calls_and_every_draft_defines() -> None:
    assert list(entry_points([PLUCK])) == ["pluck"]
    assert list(entry_points([PLUCK, "def pluck(a):\n    return a", "not code ("])) == ["pluck"]
    assert entry_points([PLUCK, "def other(a):\n    return a"]) == {}


def test_documented_calls_and_given_values_become_calls() -> None:
    assert documented_calls([PLUCK]) == [("pluck", ([4, 2, 3],)), ("pluck", ([],))]
    assert documented_calls([FRUIT]) == [
        ("fruit_distribution", ("5 apples and 6 oranges", 19)),
        ("fruit_distribution", ("0 apples and 1 oranges", 3)),
    ]


def test_a_type_hint_gives_values_where_the_drafts_give_none() -> None:
    calls = documented_calls(["def f(x: int, s: str) -> int:\n    return x"])
    assert calls[:2] == [("f", (0, "")), ("f", (1, "a"))]
    assert documented_calls(["def f(x, y):\n    return x"]) == []  # nothing to go on


def test_probes_are_the_documented_calls_then_their_variants() -> None:
    probes = probe_inputs(DERIVED_INPUTS, [PLUCK])
    assert [probe.args for probe in probes[:3]] == [([4, 2, 3],), ([],), ([4],)]
    assert len(probes) == len({probe.source() for probe in probes}) <= 32


def test_how_the_function_uses_a_parameter_gives_values_of_its_type() -> None:
    def calls(body: str) -> list[tuple]:
        return [args for _, args in documented_calls([f"def f(x):\n    {body}\n"])]

    assert calls("return x.lower()")[:2] == [("",), ("a",)]
    assert calls("return 10 ** (x - 1)")[:2] == [(0,), (1,)]
    assert calls("return [v for v in x]")[:2] == [([],), ([1],)]
    assert calls("return x") == []
    assert documented_calls(["def f(x, y):\n    return x if x > y else y\n"]) == []
