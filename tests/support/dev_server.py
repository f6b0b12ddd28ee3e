"""Start the real `langgraph dev` server for a test and stop it by its process group."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class DevServer:
    """`langgraph dev` on a free port, serving this project's langgraph.json."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 90,
        arguments: Sequence[str] = (),
    ) -> None:
        self.port = free_port()
        self.arguments = list(arguments)
        self.url = f"http://127.0.0.1:{self.port}"
        self.extra_env = dict(env or {})
        self.startup_timeout = startup_timeout
        self.state_dir = PROJECT / ".langgraph_api"
        self.saved_state = PROJECT / ".langgraph_api.saved-by-tests"
        self.log_path = PROJECT / f".dev-server-{self.port}.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> DevServer:
        # the server must start clean; a developer's own dev-server state is put back after
        if self.state_dir.exists() and not self.saved_state.exists():
            self.state_dir.rename(self.saved_state)
        shutil.rmtree(self.state_dir, ignore_errors=True)
        env = {
            **os.environ,
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "LANGGRAPH_NO_VERSION_CHECK": "1",
            **self.extra_env,
        }
        command = [
            str(Path(sys.executable).with_name("langgraph")),
            "dev",
            "--no-browser",
            "--no-reload",
            "--port",
            str(self.port),
            *self.arguments,
        ]
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                command,
                cwd=PROJECT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited early:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"langgraph dev did not become ready:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:] if self.log_path.exists() else ""

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait(timeout=5)
        shutil.rmtree(self.state_dir, ignore_errors=True)
        self.log_path.unlink(missing_ok=True)
        if self.saved_state.exists():
            self.saved_state.rename(self.state_dir)

    def __enter__(self) -> DevServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
