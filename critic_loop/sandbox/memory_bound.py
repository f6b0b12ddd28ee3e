"""Hold the memory of every process of one test run to one total, not each process alone.

A per-process limit alone lets a run hold that limit as many times as it may have
processes (64 processes x 1 GiB is more than most hosts have). `plan` chooses how the sum
stays under `CRITIC_LOOP_SANDBOX_MEMORY_MB`, the first way this system allows:

- **cgroup**: where the host delegates a cgroup v2 with the memory controller to this
  process (`CRITIC_LOOP_SANDBOX_CGROUP`, or the parent of the process's own cgroup when it
  is writable and hands its children the memory controller), each run gets a child
  cgroup of its own: `memory.max` is the total, `memory.swap.max` 0, `pids.max` the
  process limit. Every process of the run (each sandbox, every child of the drafted
  code) starts inside it and cannot leave; the kernel counts them together.
- **rlimit**: elsewhere, the per-process address-space limit times the process limit
  (RLIMIT_NPROC, which the sandbox's own user makes this run's alone) is kept under the
  total: the number of processes is lowered first (to no fewer than `MIN_PROCESSES`),
  then the per-process limit (to no less than `MIN_PROCESS_BYTES`; the operator's total
  is at least 1 GiB, so both fit).
- **per-process**: where the kernel cannot limit the run's processes (no sandbox user),
  only each process is bounded; the sandbox is then incomplete, and served runs refuse it.

`MemoryBound.event` says which, for the caller's progress events.
"""

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
"""A cgroup v2 directory the operator delegated to this process, for the runs' cgroups."""

MIB = 1024 * 1024

MIN_PROCESS_BYTES = 64 * MIB
"""The least address space a process gets (Python with pytest starts in it)."""

MIN_PROCESSES = 8
"""The fewest processes (threads included) a run is lowered to: a small process pool's."""

Method = Literal["cgroup", "rlimit", "per-process"]


@dataclass(frozen=True)
class MemoryBound:
    """How one run's memory is held to its total, and the limits that follow."""

    method: Method
    total_bytes: int
    """The most all the run's processes hold together (per-process: no such bound)."""
    processes: int
    """The most processes (threads included) of each sandbox of the run."""
    process_bytes: int
    """The address-space limit of each process."""
    sandboxes: int = 1
    """How many sandboxes the run starts side by side (they share the total)."""
    cgroup_parent: str | None = None
    """Where the run's cgroup is made (cgroup method)."""

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


def _own_cgroup() -> tuple[Path, str] | None:
    """Return the cgroup v2 mount point and this process's cgroup path in it, if any."""
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


def usable(directory: Path, enable: bool = False) -> bool:
    """Whether runs' cgroups with a memory limit can be made under `directory`.

    With `enable`, the memory controller is turned on for its children if it is not yet
    (the operator's own directory only: never a cgroup this process merely lives under).
    """
    control = directory / "cgroup.subtree_control"
    try:
        if enable and "memory" not in control.read_text().split():
            control.write_text("+memory")  # refused where the directory holds processes
        return "memory" in control.read_text().split() and os.access(directory, os.W_OK)
    except OSError:
        return False


@functools.cache  # probed once: probing may turn the memory controller on
def delegated_cgroup(configured: str | None) -> Path | None:
    """Return the cgroup v2 directory under which runs get cgroups of their own, if any.

    `configured` is the operator's `CRITIC_LOOP_SANDBOX_CGROUP`; without it, the parent of
    this process's own cgroup, if it already hands its children the memory controller.
    """
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
    """Choose how a run with `limits` in each of its `sandboxes` stays under `total_bytes`.

    `cgroup` is the operator's delegated cgroup directory, if any (`delegated_cgroup`).
    """
    parent = delegated_cgroup(cgroup)
    if parent is not None:
        return MemoryBound(
            "cgroup",
            total_bytes,
            limits.processes,
            min(limits.memory_bytes, total_bytes),
            sandboxes,
            str(parent),
        )
    if not isolation.process_limit:
        return MemoryBound(
            "per-process", total_bytes, limits.processes, limits.memory_bytes, sandboxes
        )
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
