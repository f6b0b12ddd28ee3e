"""The scripted model server the benchmarks talk to, over real HTTP, with per-call latency.

It reuses the test suite's OpenAI-compatible server (`tests.support.openai_server`) with two
changes a benchmark needs: the latency is slept in the request's own handler thread,
outside the server's lock, so concurrent requests wait side by side instead of in a queue;
and the listen backlog holds hundreds of connections at once (the standard library's is 5).

`LoopResponder` answers every system under test the same way, statelessly per loop, so many
loops can share one server: the worker's task carries `loop-id=<id> rounds=<n>`, each draft
says `Draft <k> of <n>`, and the critic fails the first criterion of every draft but the
last. Run as `python -m benchmarks.performance.server --latency 0.05`, it prints
`OPENAI_BASE_URL=...` and serves until killed; `ServerProcess` starts it that way, so the
server's own work runs on another core than the system being measured.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.support.openai_server import (
    FULL_DRAFT,
    Answer,
    Failure,
    ScriptedOpenAIServer,
    Structured,
    Text,
    _QuietServer,
    is_structured_request,
    rubric_ids,
    schema_name,
)

PROJECT = Path(__file__).resolve().parents[2]
"""The repository root (the server process runs from there)."""

HINT = "Name the capacity in the first sentence."
LOOP_TAG = re.compile(r"loop-id=(\w+) rounds=(\d+)")
DRAFT_TAG = re.compile(r"Draft (\d+) of (\d+)")


def loop_task(loop_id: str, rounds: int) -> str:
    """Return a task whose loop takes exactly `rounds` rounds against `LoopResponder`."""
    return (
        "Write a short product description of the TrailFlask, a 750 ml insulated bottle, "
        f"for an online shop. (loop-id={loop_id} rounds={rounds})"
    )


def _text_of(request: dict[str, Any]) -> str:
    return "\n".join(str(message.get("content") or "") for message in request["messages"])


@dataclass
class LoopResponder:
    """Answers worker and critic requests so that each loop ends exactly at its last round.

    The worker's k-th reply in a loop is `Draft k of n` and a fixed-size text (so prompt
    sizes reflect the system, not the draft); the critic fails the first criterion of every
    draft but the n-th, with a hint, and passes everything on the n-th.
    """

    drafts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def __call__(self, request: dict[str, Any]) -> Answer:
        """Answer one request: a draft for the worker, a verdict for the critic."""
        text = _text_of(request)
        if not is_structured_request(request):
            tag = LOOP_TAG.search(text)
            if tag is None:
                return Failure(400, "the benchmark's worker needs a loop-id tag in the task")
            loop_id, rounds = tag.group(1), int(tag.group(2))
            self.drafts[loop_id] += 1
            return Text(f"Draft {self.drafts[loop_id]} of {rounds}. {FULL_DRAFT}")
        if schema_name(request) == "rule_operations":
            return Structured({"operations": []})
        found = DRAFT_TAG.findall(text)
        last = bool(found) and found[-1][0] == found[-1][1]
        ids = rubric_ids(request)
        failing = set() if last else set(ids[:1])
        results = [
            {
                "criterion_id": criterion_id,
                "evidence": f'For {criterion_id}: it says "{FULL_DRAFT[:40]}".',
                "passed": criterion_id not in failing,
                "terminal": False,
                "hint": HINT if criterion_id in failing else "",
            }
            for criterion_id in ids
        ]
        feedback = "Revise the opening." if failing else ""
        return Structured({"results": results, "feedback": feedback, "passed": not failing})


class _WideServer(_QuietServer):
    """The test server's HTTP server with a listen backlog for hundreds of clients."""

    request_queue_size = 1024


class LatencyServer(ScriptedOpenAIServer):
    """`ScriptedOpenAIServer` that waits `latency` seconds per answer, concurrently.

    Set `keep_requests=False` for long runs: the requests are then counted, not kept.
    """

    def __init__(self, responder: Any, latency: float = 0.0, *, keep_requests: bool = True) -> None:
        """Serve `responder` on a free port of 127.0.0.1 (call `start`)."""
        super().__init__(responder)
        self._server.server_close()
        self._server = _WideServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.latency = latency
        self.keep_requests = keep_requests
        self.count = 0

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        class Handler(super()._handler()):  # type: ignore[misc,valid-type]
            # headers and body go out in two writes: with Nagle's algorithm on, the body
            # waits for the client's delayed ACK (40 ms on Linux) on a kept-alive connection
            disable_nagle_algorithm = True

        return Handler

    def _answer(self, request: dict[str, Any]) -> Answer:
        if self.latency:
            time.sleep(self.latency)  # in this request's handler thread, outside the lock
        with self._lock:
            self.count += 1
            if self.keep_requests:
                self.requests.append(request)
            answer: Answer = self.responder(request)
            return answer


class ServerProcess:
    """Run `LatencyServer` with a `LoopResponder` in a child process (a context manager)."""

    def __init__(self, latency: float = 0.0) -> None:
        """Prepare a server that waits `latency` seconds per answer."""
        self.latency = latency
        self.base_url = ""
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> ServerProcess:
        """Start the server and read its address."""
        command = [sys.executable, "-m", "benchmarks.performance.server"]
        self._process = subprocess.Popen(
            [*command, "--latency", str(self.latency)],
            cwd=PROJECT,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(PROJECT)},
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()
        if not line.startswith("OPENAI_BASE_URL="):
            self.__exit__()
            raise RuntimeError(f"the benchmark model server did not start: {line!r}")
        self.base_url = line.partition("=")[2]
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop the server process (it is ours: stopped by its own pid)."""
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=5)
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._process = None


def prompt_sizes(request: dict[str, Any]) -> dict[str, int]:
    """Return a request's prompt size: characters of its messages, and approximate tokens."""
    characters = len(json.dumps(request.get("messages", [])))
    return {"characters": characters, "approx_tokens": max(1, characters // 4)}


def main() -> None:
    """Serve until SIGTERM, printing the address on the first line."""
    parser = argparse.ArgumentParser(description="The benchmarks' scripted model server.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    args = parser.parse_args()
    server = LatencyServer(LoopResponder(), args.latency, keep_requests=False)
    with server:
        sys.stdout.write(f"OPENAI_BASE_URL={server.base_url}\n")
        sys.stdout.flush()
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()


if __name__ == "__main__":
    main()
