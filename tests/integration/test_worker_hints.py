"""What the worker reads of a failed check is what it needs to fix it, as written, once.

Over real HTTP to the scripted model server; the checks are deterministic, so only the
worker is called.
"""

from typing import Any

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.state.context import Context
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer

pytestmark = pytest.mark.integration

SLUG_TESTS = """
import pytest
from solution import slugify

def test_spaces():
    assert slugify("  a   b ") == "a-b"

def test_call_on_three_lines():
    assert slugify(
        "  many   spaces here "
    ) == "many-spaces-here"

@pytest.mark.parametrize("text", ["x", "y"])
def test_gives_text(text):
    assert isinstance(slugify(text), str)
"""


def worker_prompts(rubric: list[dict[str, Any]], *drafts: str) -> list[str]:
    """Run the loop on `rubric` with the worker replying `drafts`; return its prompts."""
    with ScriptedOpenAIServer(RoleScript(worker=list(drafts))) as server:
        context = Context(
            worker_model="openai:w",
            critic_model="openai:c",
            base_url=server.base_url,
            memory=False,
            candidates=1,
            max_iterations=len(drafts),
            stall_rounds=len(drafts),
        )
        out = build_graph().invoke({"task": "Write it.", "rubric": rubric}, context=context)
    assert out["outcome"] == "passed"
    return ["\n".join(str(m.get("content")) for m in r["messages"]) for r in server.requests]


def test_a_failing_call_reaches_the_worker_as_the_test_wrote_it_with_each_note_once() -> None:
    rubric = [{"id": "slug", "kind": "tests", "tests": SLUG_TESTS, "timeout_seconds": 20}]
    wrong = (
        "```python\ndef slugify(text):\n    if len(text) == 1:\n        raise ValueError('short')\n"
        "    return text.replace(' ', '-')\n```"
    )
    right = "```python\ndef slugify(text):\n    return '-'.join(text.split())\n```"
    revision = worker_prompts(rubric, wrong, right)[1]
    assert """slugify("  a   b ") returned '--a---b-', expected 'a-b'""" in revision
    assert "slugify('  many   spaces here ') returned '--many---spaces-here-'" in revision
    assert revision.count("isinstance(slugify(text), str) raised ValueError: short") == 1
    assert "test_gives_text[x], test_gives_text[y]" in revision


CONFIG_SCHEMA = {
    "type": "object",
    "required": ["config"],
    "properties": {
        "config": {
            "type": "object",
            "required": ["name", "port"],
            "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
        }
    },
}


def test_fenced_json_is_read_inside_its_fence_and_every_schema_error_is_named_in_words() -> None:
    rubric = [
        {"id": "config", "kind": "json_schema", "schema": CONFIG_SCHEMA},
        {"id": "json", "kind": "json"},
    ]
    wrong = '```json\n{"config": {"port": "8080"}}\n```'
    right = 'Here it is:\n```json\n{"config": {"name": "web", "port": 8080}}\n```'
    revision = worker_prompts(rubric, wrong, right)[1]
    assert "The value at config.name is missing; the value at config.port must be an integer." in (
        revision
    )
    assert "is not of type" not in revision and "required property" not in revision
