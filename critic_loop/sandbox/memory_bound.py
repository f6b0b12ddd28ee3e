"""Hold the memory of every process of one test run to one total (docs/security.md: how)."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from critic_loop.sandbox.isolation import Isolation, Limits

logger = logging.getLogger(__name__)

CGROUP_VARIABLE = "CRITIC_LOOP_SANDBOX_CGROUP"
MIB = 1024 * 1024
MIN_PROCESS_BYTES = 64 * MIB  # Python with pytest starts in it
MIN_PROCESSES = 8  # threads included: a small process pool's

Method = Literal["cgroup", "rlimit", "per-process"]


@dataclass(frozen=True)
class MemoryBound:
    """How one run's memory is held to its total, and the limits that follow."""

    method: Method
    total_bytes: int  # all the run's processes together (per-process: no such bound)
    processes: int  # of each sandbox, threads included
    process_bytes: int  # the address-space limit of each process
    sandboxes: int = 1  # side by side, sharing the total
    cgroup_parent: str | None = None

    def applied_to(self, limits: Limits) -> Limits:
        """Return `limits` with this bound's per-process memory and process count."""
        return replace(limits, memory_bytes=self.process_bytes, processes=self.processes)

    def event(self) -> dict[str, Any]:
        """Describe the bound for the run's events."""
        return {
            "memory_bound": self.method,
            "total_mb": self.total_bytes // MIB if self.method != "per-process" else None,
            "processes": self.processes * self.sandboxes,
            "process_mb": self.process_bytes // MIB,
        }


def _own_cgroup() -> tuple[Path, str] | None:  # the cgroup v2 mount, this process's path
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    own = next((line[3:] for line in lines if line.startswith("0::")), None)
    for mount in mounts:
        before, _, after = mount.partition(" - ")
        if own is not None and after.split(" ")[0] == "cgroup2":
            return Path(before.split(" ")[4]), own.strip("/")
    return None


def usable(directory: Path, enable: bool = False) -> bool:  # enable: the operator's own only
    """Tell whether runs' cgroups can be made under `directory`; `enable` turns its memory on."""
    control = directory / "cgroup.subtree_control"
    try:
        if enable and "memory" not in control.read_text().split():
            control.write_text("+memory")  # refused where the directory holds processes
        return "memory" in control.read_text().split() and os.access(directory, os.W_OK)
    except OSError:
        return False


@functools.cache  # probed once: probing may turn the memory controller on
def delegated_cgroup(configured: str | None) -> Path | None:
    """Return the cgroup v2 directory for the runs' cgroups: the operator's, else our parent."""
    if configured:
        if usable(Path(configured), enable=True):
            return Path(configured)
        logger.warning(
            "%s=%s is not a writable cgroup v2 directory whose children get the memory "
            "controller; test runs' memory is bounded by process limits instead",
            CGROUP_VARIABLE,
            configured,
        )
        return None
    found = _own_cgroup()
    if found is None or not found[1]:
        return None
    parent = (found[0] / found[1]).parent
    return parent if usable(parent) else None


def plan(
    limits: Limits,
    total_bytes: int,
    isolation: Isolation,
    sandboxes: int = 1,
    cgroup: str | None = None,
) -> MemoryBound:
    """Choose how a run with `limits` in each of its `sandboxes` stays under `total_bytes`."""
    parent = delegated_cgroup(cgroup)
    processes, process_bytes = limits.processes, min(limits.memory_bytes, total_bytes)
    if parent is not None:
        return MemoryBound("cgroup", total_bytes, processes, process_bytes, sandboxes, str(parent))
    if not isolation.process_limit:
        return MemoryBound("per-process", total_bytes, processes, limits.memory_bytes, sandboxes)
    share = total_bytes // sandboxes
    processes = min(limits.processes, max(MIN_PROCESSES, share // limits.memory_bytes))
    process_bytes = max(MIN_PROCESS_BYTES, min(limits.memory_bytes, share // processes))
    return MemoryBound("rlimit", total_bytes, processes, process_bytes, sandboxes)


def _write(path: Path, value: str) -> None:
    with contextlib.suppress(FileNotFoundError):  # a controller this host does not delegate
        path.write_text(value)


def make_cgroup(bound: MemoryBound) -> Path | None:
    """Make the run's own cgroup (cgroup method; None otherwise); `remove_cgroup` it after."""
    if bound.method != "cgroup" or bound.cgroup_parent is None:
        return None
    cgroup = Path(bound.cgroup_parent) / f"critic-loop-test-{os.getpid()}-{secrets.token_hex(4)}"
    cgroup.mkdir()
    try:
        (cgroup / "memory.max").write_text(str(bound.total_bytes))
        _write(cgroup / "memory.swap.max", "0")
        _write(cgroup / "pids.max", str(bound.processes * bound.sandboxes))
    except BaseException:
        remove_cgroup(cgroup)
        raise
    return cgroup


def remove_cgroup(cgroup: Path | None) -> None:
    """Kill what is left in the run's cgroup and remove it (nothing if None)."""
    if cgroup is None:
        return
    for _ in range(50):
        kill = cgroup / "cgroup.kill"  # Linux 5.14 and later
        if kill.exists():
            with contextlib.suppress(OSError):
                kill.write_text("1")
        try:
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)  # the killed processes are still leaving
    logger.warning("could not remove the test run's cgroup %s", cgroup)


def started_in(cgroup: Path | None, argv: list[str]) -> list[str]:
    """Return `argv` started inside `cgroup` (the shell joins it, then becomes `argv`)."""
    if cgroup is None:
        return argv
    join = 'echo $$ > "$0" && exec "$@"'
    return ["/bin/sh", "-c", join, str(cgroup / "cgroup.procs"), *argv]
