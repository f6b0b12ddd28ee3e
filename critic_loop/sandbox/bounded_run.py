"""Run two processes with a deadline; each process group is killed as one (at once if cancelled)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass

from critic_loop.sandbox.isolation import Command

KEEP_BYTES = 64 * 1024
CHUNK_BYTES = 64 * 1024
DRAIN_SECONDS = 2.0  # how long output is still read after a timed-out run was killed


class _HeadTail:
    """The first and the last `keep` bytes of a stream; what lies between is counted only."""

    def __init__(self, keep: int = KEEP_BYTES) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
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
        cut = max(0, len(self.tail) - self.keep)
        dropped = self.dropped + cut
        if not dropped:
            return bytes(self.head + self.tail).decode(errors="replace")
        head = self.head.decode(errors="replace")
        tail = bytes(self.tail[cut:]).decode(errors="replace")
        return f"{head}\n[... {dropped} bytes of output left out ...]\n{tail}"


class _Collected:
    """A stream kept whole up to `limit` bytes; past that, it is only marked as too long."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.too_long = False

    def feed(self, data: bytes) -> None:
        if len(self.data) + len(data) > self.limit:
            self.too_long = True
        if not self.too_long:
            self.data += data

    def value(self) -> bytes | None:
        return None if self.too_long else bytes(self.data)


@dataclass(frozen=True)
class Finished:
    """How a process ended: its exit status (None: see `PairFinished`), and its output."""

    returncode: int | None
    output: str


@dataclass(frozen=True)
class PairFinished:
    """How both ended, and `main`'s report (None: the deadline passed, helper stopped, too long)."""

    main: Finished
    helper: Finished
    report: bytes | None


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _start(command: Command) -> asyncio.subprocess.Process:
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


async def _drain(stream: asyncio.StreamReader | None, into: _HeadTail | _Collected) -> None:
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
    """Run both at most `timeout` s, reading `main`'s report; closes `report_fd` and their fds."""
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
    outputs = {"main": _HeadTail(), "helper": _HeadTail()}
    report = _Collected(report_limit)
    readers = [
        asyncio.ensure_future(_drain(running.stdout, outputs["main"])),
        asyncio.ensure_future(_drain(reader, report)),
        asyncio.ensure_future(_drain(helping.stdout, outputs["helper"])),
    ]

    async def main_done() -> None:
        await asyncio.gather(readers[0], readers[1])
        await running.wait()

    def kill_both() -> None:
        for process in (running, helping):
            if process.returncode is None:
                _kill_group(process.pid)

    waiting = asyncio.ensure_future(main_done())
    finished, helper_status = False, None
    try:
        done, _ = await asyncio.wait({waiting}, timeout=timeout)
        finished = waiting in done and waiting.exception() is None
        helper_status = helping.returncode
        kill_both()
        await asyncio.wait(readers, timeout=DRAIN_SECONDS)
    finally:  # also when this task is cancelled: nothing outlives it
        kill_both()
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
