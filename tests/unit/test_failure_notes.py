"""A failing test becomes one short line: which example, what came back, what was expected."""

import pytest

from critic_loop.sandbox.report import describe_failure

CASES = [
    (
        "assert 4 == 3\n +  where 4 = add(1, 2)",
        "test_solution.py:3: in test_small\n    assert add(1, 2) == 3\nE   assert 4 == 3",
        "add(1, 2) returned 4, expected 3",
    ),
    (
        "AssertionError: assert ['a b'] == ['a', 'b']\n  \n  At index 0 diff: 'a b' != 'a'",
        'test_solution.py:5: in test_list\n    assert words("a b") == ["a", "b"]\nE   ...',
        "words(\"a b\") returned ['a b'], expected ['a', 'b']",
    ),
    (
        'TypeError: can only concatenate str (not "int") to str',
        'test_solution.py:7: in test_str\n    assert add("x", "y") == "xy"\nsolution.py:2: in add',
        'add("x", "y") raised TypeError: can only concatenate str (not "int") to str',
    ),
    (
        "AssertionError: adding one and one\nassert 3 == 2",
        'test_solution.py:10: in test_plain\n    assert x == 2, "adding one and one"',
        "got 3, expected 2 (adding one and one)",
    ),
    (
        "AssertionError: assert '--a---b-' == 'a-b'",
        'test_solution.py:4: in test_spaces\n    assert slugify("  a   b ") == "a-b"',
        "slugify(\"  a   b \") returned '--a---b-', expected 'a-b'",
    ),
    (
        "AssertionError: assert False\n +  where False = isinstance(None, str)\n"
        " +    where None = slugify('x')",
        "test_solution.py:6: in test_text\n    assert isinstance(slugify(text), str)",
        "isinstance(slugify(text), str) was false: slugify('x') returned None",
    ),
    (
        "RecursionError: maximum recursion depth exceeded",
        "",
        "RecursionError: maximum recursion depth exceeded",
    ),
]


@pytest.mark.parametrize(("message", "traceback", "expected"), CASES)
def test_a_failure_reads_as_one_line(message, traceback, expected) -> None:
    assert describe_failure(message, traceback) == expected


def test_a_long_failure_is_cut() -> None:
    note = describe_failure("assert " + "x" * 500 + " == 1")
    assert len(note) == 200 and note.endswith("...")
