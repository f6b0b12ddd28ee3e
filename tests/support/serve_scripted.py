"""Serve a scripted OpenAI-compatible model from the shell, for smoke tests of an install.

    python -m tests.support.serve_scripted [--latency SECONDS]

prints `OPENAI_BASE_URL=http://127.0.0.1:PORT/v1` on its first line, then serves until it
is killed. It answers like a diligent model on any task: the worker drafts a text that
changes each round, the judge passes every criterion from round 2 on (quoting the
artifact as evidence), and the distiller proposes one rule.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading

from tests.support.openai_server import DiligentModel, ScriptedOpenAIServer


def main() -> None:
    """Start the server, print its address, and wait until killed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    args = parser.parse_args()
    with ScriptedOpenAIServer(DiligentModel(latency=args.latency)) as server:
        sys.stdout.write(f"OPENAI_BASE_URL={server.base_url}\n")
        sys.stdout.flush()
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()


if __name__ == "__main__":
    main()
