"""A SQLite lock held for too long ends the wait with an error naming it, never a hang."""

import asyncio
import fcntl

import pytest

from critic_loop import keyed_locks
from critic_loop.keyed_locks import LockWaitExpired
from critic_loop.persistence import aopen_persistence, open_persistence, sqlite

pytestmark = pytest.mark.integration


@pytest.fixture
def held_setup_lock(tmp_path, monkeypatch):
    """The database's setup lock, held by another open file (as another process would)."""
    monkeypatch.setattr(keyed_locks, "LOCK_WAIT_SECONDS", 0.3)
    database = tmp_path / "runs.sqlite"
    with (sqlite.lock_directory(database) / "setup.lock").open("a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        yield database


def test_opening_waits_for_the_setup_lock_then_names_it(held_setup_lock) -> None:
    with (
        pytest.raises(LockWaitExpired, match=r"waited 0 s for .*setup\.lock"),
        open_persistence(held_setup_lock),
    ):
        pass


def test_opening_from_async_code_waits_then_names_it(held_setup_lock) -> None:
    async def open_it() -> None:
        async with aopen_persistence(held_setup_lock):
            pass

    with pytest.raises(LockWaitExpired, match=r"setup\.lock"):
        asyncio.run(open_it())


def test_a_lock_let_go_in_time_is_taken(tmp_path) -> None:
    database = tmp_path / "runs.sqlite"
    path = sqlite.lock_directory(database) / "setup.lock"
    with path.open("a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)

        async def take_after_release() -> None:
            async def release() -> None:
                await asyncio.sleep(0.05)
                fcntl.flock(holder, fcntl.LOCK_UN)

            releasing = asyncio.ensure_future(release())
            async with sqlite.file_locks(database).ahold("setup"):
                pass
            await releasing

        asyncio.run(take_after_release())
    with open_persistence(database) as persistence:
        assert persistence.store is not None
