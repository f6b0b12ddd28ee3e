"""Run a command with a deadline, keeping only a bounded part of its output.

The output (stdout and stderr together) is read in chunks as it comes; the parent keeps
its first and last `KEEP_BYTES` and only counts what lies between, so its memory stays
flat whatever the child prints. The child runs in a process group of its own, killed as
one at the deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

KEEP_BYTES = 64 * 1024
"""How much of the start and of the end of the output the parent keeps."""

CHUNK_BYTES = 64 * 1024
"""How much output is read at a time."""

DRAIN_SECONDS = 2.0
"""How long output is still read after a timed-out run was killed."""

T = TypeVar("T")


class HeadTail:
    """The first and the last `keep` bytes of a stream; what lies between is counted only."""

    def __init__(self, keep: int = KEEP_BYTES) -> None:
        """Start empty, keeping up to `keep` bytes at each end."""
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        """Take the next piece of the stream."""
        room = self.keep - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > 2 * self.keep:  # trimmed now and then, not on every piece
            cut = len(self.tail) - self.keep
            del self.tail[:cut]
            self.dropped += cut

    def text(self) -> str:
        """Return the kept text, with a note on how much was left out in the middle."""
        cut = max(0, len(self.tail) - self.keep)
        dropped = self.dropped + cut
        if not dropped:
            return bytes(self.head + self.tail).decode(errors="replace")
        head = self.head.decode(errors="replace")
        tail = bytes(self.tail[cut:]).decode(errors="replace")
        return f"{head}\n[... {dropped} bytes of output left out ...]\n{tail}"


@dataclass(frozen=True)
class Finished:
    """How a run ended: its exit status (None: it timed out and was killed), its output."""

    returncode: int | None
    output: str


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _read_until(fd: int, output: HeadTail, deadline: float) -> bool:
    """Read `fd` into `output` until its end (True) or the deadline (False)."""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (remaining := deadline - time.monotonic()) > 0:
            if not selector.select(remaining):
                continue
            chunk = os.read(fd, CHUNK_BYTES)
            if not chunk:
                return True
            output.feed(chunk)
    return False


def _pipe(stream: T | None) -> T:
    if stream is None:
        raise RuntimeError("the child's output is not piped")
    return stream


def run(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    pass_fds: Sequence[int] = (),
) -> Finished:
    """Run `argv` (blocking) for at most `timeout` seconds, keeping a bounded output."""
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        pass_fds=pass_fds,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # a process group of its own, killed as one
    )
    output = HeadTail()
    with _pipe(process.stdout) as stream:
        try:
            deadline = time.monotonic() + timeout
            finished = _read_until(stream.fileno(), output, deadline)
            if finished:
                try:
                    process.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    finished = False
            if not finished:
                _kill_group(process.pid)
                # what it printed before it died; a process that escaped the group and
                # holds the pipe open cannot hold the run
                _read_until(stream.fileno(), output, time.monotonic() + DRAIN_SECONDS)
        finally:
            if process.poll() is None:
                _kill_group(process.pid)
            process.wait()
    return Finished(process.returncode if finished else None, output.text())


async def arun(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    pass_fds: Sequence[int] = (),
) -> Finished:
    """Run `argv` for at most `timeout` seconds without blocking the event loop."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        pass_fds=pass_fds,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        stdin=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    output = HeadTail()
    stream = _pipe(process.stdout)

    async def read() -> None:
        while chunk := await stream.read(CHUNK_BYTES):
            output.feed(chunk)

    async def read_and_wait() -> None:
        await read()
        await process.wait()

    finished = True
    try:
        try:
            await asyncio.wait_for(read_and_wait(), timeout)
        except TimeoutError:
            finished = False
            _kill_group(process.pid)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(read(), DRAIN_SECONDS)
    finally:
        if process.returncode is None:  # timed out, or this task was cancelled
            _kill_group(process.pid)
        await process.wait()
    return Finished(process.returncode if finished else None, output.text())


def read_bounded(path: Path, limit: int) -> bytes | None:
    """Return the content of `path` if it holds at most `limit` bytes, else None."""
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None
