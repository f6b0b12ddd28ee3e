"""The sandbox hostile drafted code runs in: bubblewrap, else `unshare` (docs/security.md)."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from critic_loop.sandbox import IsolationUnavailable

logger = logging.getLogger(__name__)

REQUIRE_VARIABLE = "CRITIC_LOOP_REQUIRE_ISOLATION"  # 1: a missing layer is an error
INSTALL = "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap)"
SANDBOX_UID = 65534  # nobody: the user (and group) a sandbox started by root runs as
LIBRARY = Path("/critic-loop-library")  # where the sandbox sees `build(library=...)`
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # read-only
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime")
UNSHARE_NAMESPACES = ("--fork", "--pid", "--mount-proc", "--net", "--kill-child")

# Runs inside the sandbox before any drafted code: drops to an unprivileged user when
# started as root, sets the limits, then becomes Python with the given arguments. Started
# with `python -I`, so no file of the working directory can be imported before it ran.
LAUNCHER = """
import ctypes, os, resource, sys

uid, own_namespace, limits, arguments = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
if uid >= 0:
    def write(path, text):
        with open(path, "w") as file:
            file.write(text)

    libc = ctypes.CDLL(None, use_errno=True)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if own_namespace == "1":
        libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE, so it may write its own uid_map
        if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
        write("/proc/self/setgroups", "deny")
        write("/proc/self/uid_map", f"{uid} {uid} 1")
        write("/proc/self/gid_map", f"{uid} {uid} 1")
        write("/proc/sys/user/max_user_namespaces", "0")
names = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")
for name, value in zip(names, map(int, limits.split(","))):
    limit = getattr(resource, name, None)
    if limit is None or value < 0:
        continue
    hard = resource.getrlimit(limit)[1]
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    try:
        resource.setrlimit(limit, (value, value))
    except (ValueError, OSError):
        pass
os.execv(sys.executable, [sys.executable, *arguments])
"""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed run: per process, but for `processes` and `disk`."""

    memory_bytes: int
    cpu_seconds: int
    processes: int
    file_bytes: int
    open_files: int
    disk_bytes: int


@dataclass(frozen=True)
class Isolation:
    """What this system can do to isolate a run: the probe's findings."""

    mode: Literal["bwrap", "unshare", "none"]
    bwrap: str = ""
    unshare: tuple[str, ...] = ()
    as_user: int = -1  # the uid the launcher switches to (-1: the caller's)
    own_namespace: bool = False  # the launcher makes a user namespace (after switching)
    process_limit: bool = False  # RLIMIT_NPROC is set and limits this run's processes
    missing: tuple[str, ...] = ()  # what a complete sandbox has and this one lacks, in words
    reason: str = ""  # why bubblewrap is not used, if it is not

    @property
    def complete(self) -> bool:
        return not self.missing


def _kernel_counts_processes_per_namespace() -> bool:  # Linux 5.14 and later
    try:
        major, minor = (int(part) for part in platform.release().split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


def _python_roots() -> list[Path]:  # the Python installation and virtualenv, if elsewhere
    roots: list[Path] = []
    for prefix in {sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix}:
        path = Path(prefix)
        covered = any(path.is_relative_to(system) for system in SYSTEM_PATHS)
        if not covered and not any(path.is_relative_to(root) for root in roots):
            roots = [root for root in roots if not root.is_relative_to(path)] + [path]
    return sorted(roots)


def _view(inner: Path, disk_bytes: int) -> list[str]:
    options: list[str] = []
    for name in SYSTEM_PATHS:
        path = Path(name)
        if path.is_symlink():
            options += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            options += ["--ro-bind", name, name]
    options += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC_FILES:
        options += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    options += ["--proc", "/proc", "--dev", "/dev"]
    for writable in ("/tmp", "/dev/shm"):
        options += ["--perms", "1777", "--size", str(disk_bytes), "--tmpfs", writable]
    # parent directories are made 0755: bwrap would copy the host's (such as /root's 0700)
    created = {Path("/"), Path("/tmp")}
    for root in _python_roots():
        for parent in reversed(root.parents):
            if parent not in created:
                created.add(parent)
                options += ["--perms", "0755", "--dir", str(parent)]
        options += ["--ro-bind", str(root), str(root)]
    options += ["--perms", "0777", "--dir", str(inner), "--chdir", str(inner)]
    return options


def _bwrap_command(bwrap: str, as_user: int, inner: Path, disk_bytes: int) -> list[str]:
    if as_user >= 0:  # root: the launcher switches user; bwrap makes no user namespace
        namespaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        namespaces += ["--unshare-cgroup-try", "--cap-add", "CAP_SETUID"]
        namespaces += ["--cap-add", "CAP_SETGID"]
    else:
        namespaces = ["--unshare-all", "--unshare-user", "--disable-userns"]
    namespaces += ["--die-with-parent", "--hostname", "sandbox"]
    return [bwrap, *namespaces, *_view(inner, disk_bytes)]


@dataclass
class Command:
    """One sandboxed Python run, ready to start: argv, environment and inherited files."""

    argv: list[str]
    environment: dict[str, str]
    cwd: str
    fds: list[int] = field(default_factory=list)  # inherited; the parent `close`s its copies
    signal_offset: bool = False  # 128 + N means killed by signal N (bwrap reports so)

    def returncode(self, status: int) -> int:
        """Return the exit status as subprocess gives it: -N when killed by signal N."""
        if self.signal_offset and 128 < status < 128 + 65:
            return 128 - status
        return status

    def close(self) -> None:
        """Close the parent's copies of the inherited files."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = []


def _environment(inner: Path, library: Path | None) -> dict[str, str]:
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(inner),
        "TMPDIR": str(inner),
        "LANG": "C.UTF-8",
        "PYTHONPATH": ":".join(str(path) for path in (inner, library) if path is not None),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # plain pytest, whatever is installed
    }


def _read_only_copies(source: Path, target: Path, command: Command) -> list[str]:
    options: list[str] = []
    for path in sorted(source.rglob("*")):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            command.fds.append(fd)
            inner = target / path.relative_to(source)
            options += ["--perms", "0444", "--ro-bind-data", str(fd), str(inner)]
    return options


def build(
    isolation: Isolation,
    directory: Path,
    limits: Limits,
    arguments: Callable[[Path], list[str]],
    *,
    fds: Sequence[int] = (),
    library: Path | None = None,
) -> Command:
    """Prepare Python in a read-only copy of `directory`, `library` importable; it owns `fds`."""
    numbers = [
        limits.memory_bytes,
        limits.cpu_seconds,
        limits.processes if isolation.process_limit else -1,
        limits.file_bytes,
        limits.open_files,
        0,  # no core files
    ]
    launcher = [sys.executable, "-I", "-c", LAUNCHER, str(isolation.as_user)]
    launcher += ["1" if isolation.own_namespace else "0", ",".join(map(str, numbers))]
    if isolation.mode != "bwrap":
        argv = [*isolation.unshare, *launcher, *arguments(directory)]
        return Command(argv, _environment(directory, library), str(directory), list(fds))
    inner = Path("/tmp") / directory.name
    inside_library = LIBRARY if library is not None else None
    command = Command([], _environment(inner, inside_library), "/", list(fds), signal_offset=True)
    try:
        outer = _bwrap_command(isolation.bwrap, isolation.as_user, inner, limits.disk_bytes)
        outer += _read_only_copies(directory, inner, command)
        if library is not None:
            outer += _read_only_copies(library, LIBRARY, command)
        command.argv = [*outer, *launcher, *arguments(inner)]
    except BaseException:
        command.close()
        raise
    return command


PROBE_LIMITS = Limits(
    memory_bytes=1024**3,
    cpu_seconds=30,
    processes=64,
    file_bytes=1024**2,
    open_files=256,
    disk_bytes=1024**2,
)


def _attempt(command: Command) -> str | None:  # None when it works, else why not
    try:
        completed = subprocess.run(
            command.argv,
            cwd=command.cwd,
            env=command.environment,
            pass_fds=command.fds,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    finally:
        command.close()
    if completed.returncode == 0:
        return None
    lines = completed.stderr.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {completed.returncode}"


def _bwrap_candidates(bwrap: str) -> list[Isolation]:  # most complete first
    if os.geteuid() == 0:
        shared = "a user namespace of its own for the run (its processes count against the "
        shared += "limit with every other process of uid 65534, and it may make namespaces)"
        return [
            Isolation("bwrap", bwrap, as_user=SANDBOX_UID, own_namespace=True, process_limit=True),
            Isolation("bwrap", bwrap, as_user=SANDBOX_UID, process_limit=True, missing=(shared,)),
        ]
    if _kernel_counts_processes_per_namespace():
        return [Isolation("bwrap", bwrap, process_limit=True)]
    old = "a process limit (before Linux 5.14 it would count all of the user's processes)"
    return [Isolation("bwrap", bwrap, missing=(old,))]


def _probe_bwrap(bwrap: str) -> tuple[Isolation | None, str]:  # the first that runs pytest
    reason = ""
    with tempfile.TemporaryDirectory(prefix="critic-loop-probe-") as scratch:
        directory = Path(scratch) / "critic-loop-tests-probe"
        directory.mkdir()
        (directory / "probe.py").write_text("")
        for candidate in _bwrap_candidates(bwrap):
            command = build(
                candidate, directory, PROBE_LIMITS, lambda _d: ["-m", "pytest", "--version"]
            )
            failure = _attempt(command)
            if failure is None:
                return candidate, ""
            reason = reason or failure
    return None, reason


def _probe_unshare(unshare: str) -> tuple[str, ...]:  # () where none works
    prefix = [unshare, *UNSHARE_NAMESPACES]
    if os.geteuid() != 0:
        prefix = [unshare, "--user", "--map-root-user", *UNSHARE_NAMESPACES]
    command = Command([*prefix, "true"], {"PATH": os.defpath}, "/")
    return tuple(prefix) if _attempt(command) is None else ()


def probe(bwrap: str | None, unshare: str | None) -> Isolation:
    """Find out how far runs can be isolated, given the bwrap and unshare found (or None)."""
    reason = "bubblewrap (bwrap) is not installed"
    if bwrap is not None:
        found, failure = _probe_bwrap(bwrap)
        if found is not None:
            return found
        reason = f"bubblewrap does not work here ({failure})"
    root = os.geteuid() == 0
    prefix = _probe_unshare(unshare) if unshare is not None else ()
    missing = [
        "a private view of the filesystem (the code reads and writes what the user can, "
        "such as the checkout and the home directory)",
        "a size bound on the working directory",
    ]
    if root:
        missing.append("an unprivileged user (the code runs as root)")
    process_limit = bool(prefix) and not root and _kernel_counts_processes_per_namespace()
    if not process_limit:
        missing.append("a process limit")
    if not prefix:
        missing.append("PID and network namespaces (the code sees other processes and the network)")
    mode: Literal["unshare", "none"] = "unshare" if prefix else "none"
    return Isolation(
        mode, unshare=prefix, process_limit=process_limit, missing=tuple(missing), reason=reason
    )


@functools.cache  # probing starts bwrap and unshare
def isolation() -> Isolation:
    """Probe (once per process, and again after `lost`) how far this system can isolate a run."""
    return probe(shutil.which("bwrap"), shutil.which("unshare"))


_warned: set[Isolation] = set()


def ensure_isolation() -> Isolation:
    """Return the isolation to use; warn once about what is missing, or raise if required."""
    found = isolation()
    if found.complete:
        return found
    lacking = "; ".join(found.missing)
    cause = f"{found.reason}, so it lacks" if found.reason else "it lacks"
    if os.environ.get(REQUIRE_VARIABLE) == "1":
        raise IsolationUnavailable(
            f"{REQUIRE_VARIABLE}=1 but the test sandbox cannot isolate drafted code here: "
            f"{cause} {lacking}. Install bubblewrap (Debian: apt-get install bubblewrap) "
            f"where user namespaces are allowed, or unset {REQUIRE_VARIABLE}."
        )
    if found not in _warned:
        _warned.add(found)
        remaining = {
            "bwrap": "the rest of bubblewrap's isolation and the resource limits",
            "unshare": "PID and network namespaces (unshare) and the resource limits",
            "none": "the resource limits only",
        }[found.mode]
        logger.warning(
            "The sandbox for drafted code is incomplete: %s %s. Drafted code runs with %s. "
            "Install bubblewrap (Debian: apt-get install bubblewrap) for full isolation, "
            "or run critic-loop in a container or VM.",
            cause,
            lacking,
            remaining,
        )
    return found


def shortfall(found: Isolation) -> str:
    """Say in a few words why `found` is not the complete sandbox ("" if it is)."""
    if found.complete:
        return ""
    return found.reason or f"it lacks {found.missing[0]}"


def lost(command: Command, error: OSError) -> IsolationUnavailable:
    """Explain that the sandbox's program is gone since it was probed; the next run probes anew."""
    isolation.cache_clear()
    program = error.filename or command.argv[0]
    return IsolationUnavailable(
        f"The sandbox for drafted code could not start: {program} is gone or unusable "
        f"({error.strerror or error}), though it was there when this process began. "
        f"Reinstall it ({INSTALL}) and run again."
    )
