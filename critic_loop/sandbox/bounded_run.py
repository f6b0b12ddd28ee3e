"""Run two processes side by side with a deadline, keeping a bounded part of their output.

A main process and a helper it talks to (the harness and the draft process of a suite)
run, and a report pipe only the main process writes is read: the run ends when the main
process does (the helper is stopped then), or at the deadline. Output (stdout and
stderr together) is read in chunks as it comes; the parent keeps its first and last
`KEEP_BYTES` and only counts what lies between, so its memory stays flat whatever the
child prints. Each child runs in a process group of its own, killed as one at the
deadline, or at once if the awaiting task is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass

from critic_loop.sandbox.isolation import Command

KEEP_BYTES = 64 * 1024
"""How much of the start and of the end of the output the parent keeps."""

CHUNK_BYTES = 64 * 1024
"""How much output is read at a time."""

DRAIN_SECONDS = 2.0
"""How long output is still read after a timed-out run was killed."""


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


class Collected:
    """A stream kept whole up to `limit` bytes; past that, it is only marked as too long."""

    def __init__(self, limit: int) -> None:
        """Start empty, keeping up to `limit` bytes."""
        self.limit = limit
        self.data = bytearray()
        self.too_long = False

    def feed(self, data: bytes) -> None:
        """Take the next piece of the stream."""
        if len(self.data) + len(data) > self.limit:
            self.too_long = True
        if not self.too_long:
            self.data += data

    def value(self) -> bytes | None:
        """Return the stream, or None if it was longer than the limit."""
        return None if self.too_long else bytes(self.data)


@dataclass(frozen=True)
class Finished:
    """How a process ended: its exit status (None: see `PairFinished`), and its output."""

    returncode: int | None
    output: str


@dataclass(frozen=True)
class PairFinished:
    """How a main process and its helper ended, and what the main process reported.

    `main.returncode` is None when the deadline passed; `helper.returncode` is None when
    the helper was still running when the main process ended (it was stopped then).
    `report` is None when the report was longer than its limit.
    """

    main: Finished
    helper: Finished
    report: bytes | None


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _start(command: Command) -> asyncio.subprocess.Process:
    """Start `command`, then close this process's copies of the files it inherits."""
    try:
        return await asyncio.create_subprocess_exec(
            *command.argv,
            cwd=command.cwd,
            env=command.environment,
            pass_fds=command.fds,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # a process group of its own, killed as one
        )
    finally:
        command.close()


async def _drain(stream: asyncio.StreamReader | None, into: HeadTail | Collected) -> None:
    if stream is None:
        raise RuntimeError("the child's output is not piped")
    while chunk := await stream.read(CHUNK_BYTES):
        into.feed(chunk)


async def _report_reader(report_fd: int) -> tuple[asyncio.StreamReader, asyncio.BaseTransport]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=CHUNK_BYTES)
    pipe = os.fdopen(report_fd, "rb", buffering=0)
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
    except BaseException:
        pipe.close()
        raise
    return reader, transport


async def run_pair(
    main: Command, helper: Command, *, report_fd: int, report_limit: int, timeout: float
) -> PairFinished:
    """Run `main` and `helper` for at most `timeout` seconds (see the module docstring).

    `report_fd` is the read end of a pipe whose write end only `main` inherits; it is
    closed here, as is each command's copy of its files once its process started.
    """
    reader, transport = await _report_reader(report_fd)
    try:
        helping = await _start(helper)
    except BaseException:
        transport.close()
        raise
    try:
        running = await _start(main)
    except BaseException:
        _kill_group(helping.pid)
        await helping.wait()
        transport.close()
        raise
    outputs = {"main": HeadTail(), "helper": HeadTail()}
    report = Collected(report_limit)
    readers = [
        asyncio.ensure_future(_drain(running.stdout, outputs["main"])),
        asyncio.ensure_future(_drain(reader, report)),
        asyncio.ensure_future(_drain(helping.stdout, outputs["helper"])),
    ]

    async def main_done() -> None:
        await asyncio.gather(readers[0], readers[1])
        await running.wait()

    waiting = asyncio.ensure_future(main_done())
    finished, helper_status = False, None
    try:
        done, _ = await asyncio.wait({waiting}, timeout=timeout)
        finished = waiting in done and waiting.exception() is None
        helper_status = helping.returncode
        for process in (running, helping):
            if process.returncode is None:
                _kill_group(process.pid)
        await asyncio.wait(readers, timeout=DRAIN_SECONDS)
    finally:  # also when this task is cancelled: nothing outlives it
        for process in (running, helping):
            if process.returncode is None:
                _kill_group(process.pid)
        for task in [waiting, *readers]:
            task.cancel()
        await asyncio.gather(waiting, *readers, return_exceptions=True)
        await running.wait()
        await helping.wait()
        transport.close()
    return PairFinished(
        Finished(running.returncode if finished else None, outputs["main"].text()),
        Finished(helper_status, outputs["helper"].text()),
        report.value(),
    )
