"""The embedded model's server: `python -m llama_cpp.server` on a free 127.0.0.1 port.

A process of its own, so a crash in native code cannot take the run's checkpoints with it;
on Linux it dies with the process that started it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import ClassVar

logger = logging.getLogger(__name__)


class ServerFailed(RuntimeError):
    """The embedded model server did not start; the message ends with its log's last lines."""


def _die_with_parent() -> None:  # pragma: no cover (runs in the child, before exec)
    # PR_SET_PDEATHSIG; SIGKILL, as on SIGTERM it would first finish a request for nobody
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))


@dataclass(eq=False)
class LocalModelServer:
    """One `llama_cpp.server` process serving `model_file` as `alias`."""

    # the tests put a stand-in here
    program: ClassVar[tuple[str, ...]] = (sys.executable, "-m", "llama_cpp.server")

    model_file: Path
    alias: str
    _: KW_ONLY
    threads: int
    context_size: int
    log_dir: Path
    startup_timeout: float = 180.0
    port: int = 0
    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def log_path(self) -> Path:  # removed when the server stops cleanly
        return self.log_dir / f"embedded-server-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _command(self) -> list[str]:
        return [
            *self.program,
            *("--model", str(self.model_file), "--model_alias", self.alias, "--verbose", "false"),
            *("--host", "127.0.0.1", "--port", str(self.port)),
            *("--n_ctx", str(self.context_size), "--n_threads", str(self.threads)),
        ]

    def start(self) -> LocalModelServer:
        """Start the server and wait until it serves its model.

        Raises:
            ServerFailed: it exited, or did not answer within `startup_timeout` seconds.
        """
        with socket.socket() as probe:  # a free port
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                self._command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C at the terminal is the command's to handle
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509
            )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise ServerFailed(
                    f"the embedded model server exited with status {self._process.returncode}"
                    f" ({self.log_path}): {self._log_tail()}"
                )
            if self._serving():
                logger.info("embedded model %s serving at %s", self.alias, self.base_url)
                return self
            time.sleep(0.25)
        tail = self._log_tail()
        self._end(self._process)  # its log stays, for the reader of the message
        self._process = None
        raise ServerFailed(
            f"the embedded model server did not answer within {self.startup_timeout:g} s "
            f"({self.log_path}): {tail}"
        )

    def _serving(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                listing = json.load(reply)
        except (OSError, ValueError):
            return False
        return any(model.get("id") == self.alias for model in listing.get("data", []))

    def _log_tail(self, lines: int = 3) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop the server (SIGTERM to its process group, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        self._end(process)
        self.log_path.unlink(missing_ok=True)

    @staticmethod
    def _end(process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
