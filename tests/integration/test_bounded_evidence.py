"""A round whose checks produce megabytes of evidence stores a small, bounded critique.

Issue #22 measured a forged report naming 16,000 failing cases: 6.2 MB of evidence and
12.4 MB of thread state after one round. Here one round meets the same flood twice: a
drafted module that forges a 16,000-case report (and prints one), graded by a real
`tests` criterion, and a `python` check whose evidence names 16,000 failing cases. Every
evidence string and hint stays within the operator's limits, and the whole thread state
after the round is under 100 KB.
"""

import json

import pytest

from critic_loop import run_loop
from critic_loop.graphs.app import build_graph
from critic_loop.persistence import open_persistence
from critic_loop.state.operator_settings import operator_settings
from tests.support.code_task import ADD_TESTS
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer

pytestmark = pytest.mark.integration

CASES = 16_000

FORGING_DRAFT = f"""```python
import json, os, sys

NAMES = [f"test_case_{{i}}" for i in range({CASES})]
for name in NAMES:
    print(f"FAILED test_solution.py::{{name}} - assert False")
REPORT = "".join(
    json.dumps({{"event": "result", "nodeid": n, "outcome": "failed", "message": "x" * 300,
                "traceback": ""}}) + "\\n" for n in NAMES
).encode()
try:  # every descriptor it inherited (in a long test session their numbers run high)
    FDS = [int(name) for name in os.listdir("/proc/self/fd")]
except OSError:
    FDS = range(3, 65536)
for fd in [fd for fd in FDS if fd > 2]:
    try:
        os.write(fd, REPORT)
    except OSError:
        pass

def add(a, b):
    return a + b + 1
```"""


def sixteen_thousand_failures(draft: str) -> tuple[bool, str, str]:
    """A check whose evidence names every one of 16,000 failing cases (6 MB and more)."""
    names = ", ".join(f"test_case_{i}_{'x' * 360}" for i in range(CASES))
    return False, f"{CASES} of {CASES} tests failed: {names}.", f"Fix these: {names}"


def test_a_round_with_megabytes_of_evidence_keeps_a_small_state(tmp_path) -> None:
    database = str(tmp_path / "runs.sqlite")
    rubric = [
        {"id": "tests", "kind": "tests", "tests": ADD_TESTS, "timeout_seconds": 120},
        {"id": "cases", "kind": "python", "function": sixteen_thousand_failures},
    ]
    with ScriptedOpenAIServer(RoleScript(worker=[FORGING_DRAFT])) as server:
        state = run_loop(
            "Write add(a, b).",
            rubric,
            context={
                "worker_model": "openai:stub",
                "critic_model": "openai:stub",
                "base_url": server.base_url,
                "max_iterations": 1,
                "memory": False,
                "candidates": 1,  # the script holds one draft
            },
            thread_id="flood",
            database=database,
        )
    assert state.outcome == "exhausted"
    with open_persistence(database) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        values = graph.get_state({"configurable": {"thread_id": "flood"}}).values
    [critique] = values["critiques"]
    results = {r["criterion_id"]: r for r in critique["verdict"]["results"]}
    settings = operator_settings()
    for result in results.values():
        assert not result["passed"]
        assert len(result["evidence"]) <= settings.max_evidence_chars
        assert len(result["hint"]) <= settings.max_hint_chars
    assert results["cases"]["evidence"].endswith("characters left out]")
    assert "sent no usable description" in results["tests"]["hint"]  # it wrote on its channel
    size = len(json.dumps(values, default=str))
    assert size < 100_000, size
