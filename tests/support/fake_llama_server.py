"""A stand-in for llama-cpp-python's server, for the embedded model's tests.

`critic_loop.local_model.server.LocalModelServer` runs `python -m llama_cpp.server` with
llama-cpp-python's arguments; the tests put this script in its place
(`LocalModelServer.program`), so the default suite never builds or starts a real model.
Like the real server it takes `--model`, `--model_alias`, `--host` and `--port`, refuses a
file that is no GGUF model (exit status 1, the reason in its log), lists its model under
the alias, refuses `response_format: json_schema`, and answers as a diligent model
(`tests.support.openai_server.DiligentModel`) until it is stopped.

Run as a script (`python tests/support/fake_llama_server.py ARGS`): it puts the checkout on
`sys.path` itself, since the server is started from whatever folder the test runs in.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

GGUF_MAGIC = b"GGUF"
"""The first bytes of every GGUF model file."""

SCRIPT = Path(__file__).resolve()
"""This file, as `LocalModelServer.program` runs it."""


def program() -> tuple[str, ...]:
    """Return the command that runs this stand-in, for `LocalModelServer.program`."""
    return (sys.executable, str(SCRIPT))


def write_model_file(path: Path) -> Path:
    """Write a file the stand-in accepts as a model (a GGUF header and nothing else)."""
    path.write_bytes(GGUF_MAGIC + bytes(28))
    return path


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM or SIGINT; return 1 if the model file is not a GGUF file."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--model_alias", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n_ctx")
    parser.add_argument("--n_threads")
    parser.add_argument("--verbose")
    args = parser.parse_args(argv)

    with open(args.model, "rb") as model:
        if model.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
            sys.stderr.write(
                "gguf_init_from_file_impl: invalid magic characters\n"
                f"ValueError: Failed to load model from file: {args.model}\n"
            )
            return 1

    sys.path.insert(0, str(SCRIPT.parents[2]))
    from tests.support.openai_server import DiligentModel, RefusesJsonSchema, ScriptedOpenAIServer

    stopped = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopped.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    responder = RefusesJsonSchema(DiligentModel())
    with ScriptedOpenAIServer(responder, port=args.port, model_id=args.model_alias):
        sys.stderr.write(f"stand-in serving {args.model_alias} on {args.host}:{args.port}\n")
        sys.stderr.flush()
        stopped.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
