"""Ctrl-C (and SIGTERM) at any step of a command-line run; the same command resumes it.

The model server answers from what each request says (which round the worker is on,
which draft the judge sees), so a resumed run gets the same answers as an uninterrupted
one. It can hold a chosen request until the test has stopped the command.
"""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.persistence import open_persistence
from critic_loop.state.rules import rules_namespace
from tests.support.openai_server import (
    ScriptedOpenAIServer,
    Structured,
    Text,
    artifact_of,
    is_structured_request,
    rubric_ids,
    schema_name,
)

pytestmark = pytest.mark.integration

CLI = str(Path(sys.executable).with_name("critic-loop"))
RULE = "State the one idea in the first sentence."


class ByContent:
    """Drafts "draft N" for round N; passes only "draft 3"; the distiller adds one rule.

    `hold` names a request ("worker-2", "critic-2", "distill") to keep unanswered until
    `release` is set; `seen` is set when it arrives.
    """

    def __init__(self, hold: str | None = None) -> None:
        self.hold = hold
        self.seen = threading.Event()
        self.release = threading.Event()

    def _key_and_answer(self, request: dict[str, Any]) -> tuple[str, Any]:
        if not is_structured_request(request):
            text = str(request["messages"])
            revised = re.findall(r"That version \(round (\d+)\)", text)
            number = int(revised[-1]) + 1 if revised else 1
            return f"worker-{number}", Text(f"draft {number}")
        if schema_name(request) == "rule_operations":
            add = {"action": "add", "rule_id": "", "text": RULE, "criteria": [], "reason": "r"}
            return "distill", Structured({"operations": [add]})
        draft = artifact_of(request).strip()
        number = int(draft.split()[-1])
        passed = number >= 3
        results = [
            {
                "criterion_id": cid,
                "evidence": f'It says "{draft}".',
                "passed": passed,
                "terminal": False,
                "hint": "" if passed else "State the one idea up front.",
            }
            for cid in rubric_ids(request)
        ]
        return f"critic-{number}", Structured(
            {"results": results, "feedback": "", "passed": passed}
        )

    def __call__(self, request: dict[str, Any]) -> Any:
        key, answer = self._key_and_answer(request)
        if key == self.hold and not self.release.is_set():
            self.seen.set()
            self.release.wait(60)
        return answer


def start(tmp_path: Path, server: ScriptedOpenAIServer) -> subprocess.Popen[str]:
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CRITIC_LOOP_"))
    }
    return subprocess.Popen(
        [
            CLI,
            "run",
            "--task",
            "Explain recursion.",
            "--criterion",
            "clear=It is clear.",
            "--stall-rounds",  # the script revises to round 3: no fresh sample in between
            "3",
            "--base-url",
            server.base_url,
            "--model",
            "openai:stub",
            "--thread-id",
            "t1",
            "--db",
            str(tmp_path / "runs.sqlite"),
            "--memory-scope",
            "interrupts",
        ],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    # a pytest started in the background (`&` in a script) passes on SIGINT ignored, and a
    # Python started with SIGINT ignored never turns Ctrl-C into KeyboardInterrupt
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop_at(process: subprocess.Popen[str], script: ByContent, signum: int) -> tuple[str, str]:
    if script.hold is not None:
        assert script.seen.wait(60), "the run never reached the held request"
        process.send_signal(signum)
    else:  # stop right after round 1's verdict: the route step runs then
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("round 1: 0/1 criteria passed"):
                process.send_signal(signum)
                break
    out, err = process.communicate(timeout=60)
    script.release.set()
    return out, err


def thread_history(path: Path) -> tuple[list[tuple[int, str]], list[int], list[str]]:
    with open_persistence(path) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        values = graph.get_state({"configurable": {"thread_id": "t1"}}).values
        rules = [
            item.value["text"] for item in persistence.store.search(rules_namespace("interrupts"))
        ]
    drafts = [(d["round"], d["text"]) for d in values["drafts"]]
    return drafts, [c["round"] for c in values["critiques"]], rules


@pytest.mark.parametrize("step", ["worker-2", "critic-2", "route", "distill"])
def test_ctrl_c_at_any_step_then_the_same_command_resumes(tmp_path, step) -> None:
    script = ByContent(hold=None if step == "route" else step)
    with ScriptedOpenAIServer(script) as server:
        first = start(tmp_path, server)
        out, err = stop_at(first, script, signal.SIGINT)
        assert first.returncode == 130, out + err
        assert "Traceback" not in err
        [message] = err.strip().splitlines()
        assert message.startswith(
            "critic-loop: stopped by SIGINT in thread t1; every finished step is saved."
        )
        assert message.endswith(  # the thread keeps its task, rubric and settings
            "Resume with: critic-loop run --thread-id t1 --db " + str(tmp_path / "runs.sqlite")
        )

        again = start(tmp_path, server)
        out, err = again.communicate(timeout=120)
    assert again.returncode == 0, out + err
    assert "outcome: passed after 3 round(s)" in out
    drafts, critiques, rules = thread_history(tmp_path / "runs.sqlite")
    assert drafts == [(1, "draft 1"), (2, "draft 2"), (3, "draft 3")]
    assert critiques == [1, 2, 3]
    assert rules == [RULE]
    assert (
        sqlite3.connect(tmp_path / "runs.sqlite").execute("PRAGMA integrity_check").fetchone()[0]
        == "ok"
    )


def test_sigterm_stops_with_143_and_resumes(tmp_path) -> None:
    script = ByContent(hold="critic-1")
    with ScriptedOpenAIServer(script) as server:
        first = start(tmp_path, server)
        out, err = stop_at(first, script, signal.SIGTERM)
        assert first.returncode == 143, out + err
        assert "stopped by SIGTERM in thread t1" in err and "Traceback" not in err
        started = time.monotonic()
        again = start(tmp_path, server)
        out, err = again.communicate(timeout=120)
    assert again.returncode == 0, out + err
    assert time.monotonic() - started < 120
    drafts, critiques, _ = thread_history(tmp_path / "runs.sqlite")
    assert [r for r, _ in drafts] == [1, 2, 3] and critiques == [1, 2, 3]
