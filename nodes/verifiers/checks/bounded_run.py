"""Run a command (or two side by side) with a deadline, keeping a bounded part of the output.

The output (stdout and stderr together) is read in chunks as it comes; the parent keeps
its first and last `KEEP_BYTES` and only counts what lies between, so its memory stays
flat whatever the child prints. Each child runs in a process group of its own, killed as
one at the deadline.

`run_pair` / `arun_pair` run a main process and a helper it talks to (a `tests`
criterion's harness and draft processes), and read a report pipe only the main process
writes: the run ends when the main process does (the helper is stopped then), or at the
deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class Launch:
    """One process to start: its argv, working directory, environment, inherited files."""

    argv: Sequence[str]
    cwd: str
    env: Mapping[str, str]
    pass_fds: Sequence[int] = field(default_factory=tuple)
    release: Callable[[], None] = _nothing
    """Closes this process's copies of `pass_fds`; called once the child has them."""


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


def _start(launch: Launch) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            launch.argv,
            cwd=launch.cwd,
            env=launch.env,
            pass_fds=launch.pass_fds,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        launch.release()


def _read_all(
    streams: dict[int, HeadTail | Collected], until: Callable[[set[int]], bool], deadline: float
) -> set[int]:
    """Read the streams as data comes until `until(open streams)` or the deadline."""
    open_fds = set(streams)
    with selectors.DefaultSelector() as selector:
        for fd in open_fds:
            selector.register(fd, selectors.EVENT_READ)
        while not until(open_fds) and (remaining := deadline - time.monotonic()) > 0:
            for key, _ in selector.select(remaining):
                chunk = os.read(key.fd, CHUNK_BYTES)
                if chunk:
                    streams[key.fd].feed(chunk)
                else:
                    selector.unregister(key.fd)
                    open_fds.discard(key.fd)
    return open_fds


def run_pair(
    main: Launch, helper: Launch, *, report_fd: int, report_limit: int, timeout: float
) -> PairFinished:
    """Run `main` and `helper` (blocking) for at most `timeout` seconds (module docstring).

    `report_fd` is the read end of a pipe whose write end only `main` inherits; it is
    closed here. Each `Launch.release` is called as soon as its process started, so that
    this process holds no copy of the report pipe's write end (nor of the channel).
    """
    try:
        helping = _start(helper)
    except BaseException:
        os.close(report_fd)
        raise
    try:
        running = _start(main)
    except BaseException:
        _kill_group(helping.pid)
        helping.wait()
        os.close(report_fd)
        raise
    outputs = {"main": HeadTail(), "helper": HeadTail()}
    report = Collected(report_limit)
    main_out, helper_out = _pipe(running.stdout), _pipe(helping.stdout)
    streams: dict[int, HeadTail | Collected] = {
        main_out.fileno(): outputs["main"],
        helper_out.fileno(): outputs["helper"],
        report_fd: report,
    }
    main_streams = {main_out.fileno(), report_fd}
    helper_status: int | None = None
    try:
        deadline = time.monotonic() + timeout
        left = _read_all(streams, lambda still: not still & main_streams, deadline)
        finished = not left & main_streams
        if finished:
            try:
                running.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                finished = False
        helper_status = helping.poll()
        for process in (running, helping):
            if process.poll() is None:
                _kill_group(process.pid)
        drained = {fd: streams[fd] for fd in left}
        _read_all(drained, lambda still: not still, time.monotonic() + DRAIN_SECONDS)
    finally:
        for process in (running, helping):
            if process.poll() is None:
                _kill_group(process.pid)
            process.wait()
        main_out.close()
        helper_out.close()
        os.close(report_fd)
    return PairFinished(
        Finished(running.returncode if finished else None, outputs["main"].text()),
        Finished(helper_status, outputs["helper"].text()),
        report.value(),
    )


async def _astart(launch: Launch) -> asyncio.subprocess.Process:
    try:
        return await asyncio.create_subprocess_exec(
            *launch.argv,
            cwd=launch.cwd,
            env=launch.env,
            pass_fds=launch.pass_fds,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        launch.release()


async def _drain(stream: asyncio.StreamReader, into: HeadTail | Collected) -> None:
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


async def arun_pair(
    main: Launch, helper: Launch, *, report_fd: int, report_limit: int, timeout: float
) -> PairFinished:
    """Run `main` and `helper` without blocking the event loop (see `run_pair`)."""
    reader, transport = await _report_reader(report_fd)
    helping = await _astart(helper)
    try:
        running = await _astart(main)
    except BaseException:
        _kill_group(helping.pid)
        await helping.wait()
        transport.close()
        raise
    outputs = {"main": HeadTail(), "helper": HeadTail()}
    report = Collected(report_limit)
    readers = [
        asyncio.ensure_future(_drain(_pipe(running.stdout), outputs["main"])),
        asyncio.ensure_future(_drain(reader, report)),
        asyncio.ensure_future(_drain(_pipe(helping.stdout), outputs["helper"])),
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
    finally:
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
