"""A small code task for the `tests` criterion: add(a, b), its tests, and drafts of it."""

ADD_TESTS = """
from solution import add

def test_small():
    assert add(1, 2) == 3

def test_negative():
    assert add(-1, -1) == -2

def test_large():
    assert add(10**6, 1) == 10**6 + 1
"""

CORRECT = '```python\ndef add(a, b):\n    """Return the sum of a and b."""\n    return a + b\n```'
"""Passes all three tests."""

FAILS_TWO = "```python\ndef add(a, b):\n    return a + b + (1 if a >= 0 else 0)\n```"
"""Fails test_small and test_large, passes test_negative."""
