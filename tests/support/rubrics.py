"""Rubrics the tests share: a small LLM rubric for a hash-map task, and one of every kind."""

from critic_loop.state.rubric import Criterion

TASK = "Explain what a hash map is."

RUBRIC = [
    Criterion(id="length", text="The answer is at most fifty words long."),
    Criterion(id="example", text="The answer includes one concrete worked example."),
    Criterion(id="tone", text="The answer is written for a beginner audience."),
]
"""Three LLM criteria for `TASK`."""


MIXED = [
    {"id": "tone", "text": "Friendly, plain language.", "severity": "should", "weight": 0.5},
    {"id": "length", "kind": "word_count", "min": 10, "max": 90, "severity": "must", "weight": 2},
    {"id": "chars", "kind": "char_count", "max": 600, "text": "Fits a tweet thread."},
    {
        "id": "no_lorem",
        "kind": "regex",
        "pattern": "lorem",
        "must_match": False,
        "ignore_case": True,
    },
    {"id": "facts", "kind": "contains", "phrases": ["24 hours"]},
    {"id": "sections", "kind": "headings", "headings": ["Usage"]},
    {"id": "valid", "kind": "json"},
    {"id": "shape", "kind": "json_schema", "schema": {"type": "object"}},
    {"id": "syntax", "kind": "python_syntax"},
    {"id": "custom", "kind": "python", "function": "builtins:bool"},
    {
        "id": "tests",
        "kind": "tests",
        "tests": "def test_ok():\n    assert True\n",
        "timeout_seconds": 5,
    },
]
