"""One keyed lock per backend: a held key is waited for, then refused naming its holder."""

import asyncio
import os
import subprocess
import sys
import threading
import time

import pytest

from critic_loop.errors import ThreadBusy
from critic_loop.keyed_locks import FileLocks, KeyedLock, LockWaitExpired
from critic_loop.persistence.leases import local_leases

pytestmark = pytest.mark.integration


@pytest.fixture(params=["in-process", "files"])
def lock(request, tmp_path) -> KeyedLock:
    return KeyedLock(f"test {tmp_path}") if request.param == "in-process" else FileLocks(tmp_path)


def test_a_held_key_is_refused_after_the_wait_naming_its_holder(lock) -> None:
    with lock.hold("k"), pytest.raises(LockWaitExpired) as refused, lock.hold("k", wait=0.1):
        pass
    assert f"process {os.getpid()} on" in str(refused.value)
    assert "(this process)" in str(refused.value)
    with lock.hold("k", wait=0), lock.hold("other key", wait=0):
        pass  # let go, and keys are independent


def test_an_async_waiter_takes_the_key_once_it_is_let_go(lock) -> None:
    order = []

    async def holder(taken: asyncio.Event) -> None:
        async with lock.ahold("k"):
            taken.set()
            await asyncio.sleep(0.2)
            order.append("holder done")

    async def both() -> None:
        taken = asyncio.Event()
        holding = asyncio.ensure_future(holder(taken))
        await taken.wait()
        async with lock.ahold("k", wait=5):
            order.append("waiter in")
        await holding

    asyncio.run(both())
    assert order == ["holder done", "waiter in"]


def test_threads_and_tasks_exclude_each_other(lock) -> None:
    with lock.hold("k"):
        refused = asyncio.run(asyncio.wait_for(_try_async(lock), 10))
    assert isinstance(refused, LockWaitExpired)


async def _try_async(lock: KeyedLock) -> Exception | None:
    try:
        async with lock.ahold("k", wait=0.05):
            return None
    except LockWaitExpired as error:
        return error


HOLD_IN_ANOTHER_PROCESS = """
import sys, time
from pathlib import Path
from critic_loop.keyed_locks import FileLocks
with FileLocks(Path(sys.argv[1])).hold("k"):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_file_lock_names_another_process_and_dies_with_it(tmp_path) -> None:
    other = subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_ANOTHER_PROCESS, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        named = rf"k\.lock, held by process {other.pid} on"
        with pytest.raises(LockWaitExpired, match=named), FileLocks(tmp_path).hold("k", wait=0.1):
            pass
    finally:
        other.kill()  # SIGKILL: the operating system lets go
        other.wait()
    with FileLocks(tmp_path).hold("k", wait=0):
        pass


def test_leases_of_a_callers_saver_hold_within_the_process() -> None:
    saver, other_saver = object(), object()
    leases = local_leases(saver)
    with leases.hold("t"):
        busy = f"thread t is being run by process {os.getpid()}"
        with pytest.raises(ThreadBusy, match=busy), local_leases(saver).hold("t"):
            pass
        with local_leases(other_saver).hold("t"):
            pass  # another saver's thread t is another thread


def test_a_waiting_lease_is_taken_when_its_holder_lets_go() -> None:
    leases, holding, let_go = local_leases(object()), threading.Event(), threading.Event()

    def hold_a_while() -> None:
        with leases.hold("t"):
            holding.set()
            let_go.wait(10)

    holder = threading.Thread(target=hold_a_while)
    holder.start()
    assert holding.wait(10)
    threading.Timer(0.2, let_go.set).start()
    with leases.hold("t", wait=True):
        assert let_go.is_set()
    holder.join()


def test_a_waiter_cancelled_mid_attempt_lets_go_of_the_key(tmp_path, monkeypatch) -> None:
    lock, attempting = FileLocks(tmp_path), threading.Event()
    take = FileLocks._take

    def slow_take(self: FileLocks, key: str):
        attempting.set()
        time.sleep(0.3)
        return take(self, key)

    monkeypatch.setattr(FileLocks, "_take", slow_take)

    async def enter() -> None:
        async with lock.ahold("k"):
            pytest.fail("the waiter was cancelled before it held the key")

    async def cancel_mid_attempt() -> None:
        waiter = asyncio.ensure_future(enter())
        assert await asyncio.to_thread(attempting.wait, 5)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        await asyncio.sleep(0.6)  # the attempt ends in its thread, took the key, lets go

    asyncio.run(cancel_mid_attempt())
    monkeypatch.undo()
    with lock.hold("k", wait=0):
        pass
