"""The harness's pytest plugin: the drafted module's stand-in, the report (docs/test-suites.md)."""

from __future__ import annotations

import builtins
import contextlib
import importlib.abc
import importlib.machinery
import json
import os
import reprlib
import socket
import sys
import threading
import types
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from . import wire

MAX_MESSAGE = 2000
MAX_TRACEBACK = 4000  # its start: the test's line
MAX_PRINTED = 64 * 1024  # of what one call printed in the draft process
MAX_LINEAGE = 64  # ancestors an exception class may name


class BoundaryError(Exception):
    """A call to the drafted code could not be completed across the boundary."""

    __module__ = "builtins"  # reports show the bare name, as for built-in exceptions

    def __init_subclass__(cls) -> None:
        cls.__module__ = "builtins"


class NotPlainData(BoundaryError):
    """A call returned, or was given, something that is not plain data."""


class DraftEnded(BoundaryError):
    """The draft process ended (it exited or crashed) before it answered."""


class DraftRaised(BoundaryError):
    """The drafted code raised SystemExit, KeyboardInterrupt or the like."""


class BrokenReply(BoundaryError):
    """The draft process sent something that is not a reply."""


_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 60
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 6


def _call_label(name: str, arguments: Sequence[Any], keywords: dict[str, Any]) -> str:
    shown = [_repr.repr(value) for value in arguments]
    shown += [f"{key}={_repr.repr(value)}" for key, value in keywords.items()]
    return f"{name}({', '.join(shown)})"


def _not_plain(what: str, reached: str = "the tests") -> NotPlainData:
    return NotPlainData(f"{what}, not plain data (only {wire.PLAIN_TYPES} reach {reached})")


class _RemoteIterator:
    """An iterator that lives in the draft process; each `next` asks it for an item."""

    def __init__(self, draft: _Draft, handle: int) -> None:
        self.draft = draft
        self.handle = handle

    def __iter__(self) -> _RemoteIterator:
        return self

    def __next__(self) -> Any:
        __tracebackhide__ = True
        return self.draft.request({"next": self.handle}, "next(<iterator from the draft>)")

    def __repr__(self) -> str:
        return f"<iterator {self.handle} of the drafted code>"


class _Draft:
    """The channel to the draft process, and what this side made of the drafted module."""

    def __init__(self, channel: socket.socket, module_name: str) -> None:
        self.channel = channel
        self.module_name = module_name
        self.lock = threading.Lock()
        self.calls = 0
        self.ended: str | None = None
        self.exceptions: dict[tuple[str, str], type[BaseException]] = {}
        self.hello: dict[str, Any] | None = None
        self.import_error: str | None = None

    def greet(self) -> None:
        try:
            message = wire.receive(self.channel)
        except EOFError:
            self.ended = "while importing the module"
            self.import_error = (
                "its process ended while importing the module (it exited or crashed)"
            )
            return
        except wire.BrokenMessage as error:
            self.ended = "after a broken message"
            self.import_error = f"its process sent no usable description of it ({error})"
            return
        self._show_printed(message)
        if isinstance(message.get("import_error"), str):
            self.import_error = wire.short(message["import_error"], MAX_MESSAGE)
        elif isinstance(message.get("hello"), dict):
            self.hello = message["hello"]
        else:
            self.import_error = "its process sent no usable description of it"

    def _show_printed(self, message: dict[str, Any]) -> None:
        printed = message.get("printed")
        if isinstance(printed, str) and printed:
            sys.stdout.write(printed[:MAX_PRINTED])

    def handle_of(self, kind: str, value: Any) -> int:  # of a stand-in made here
        handle = getattr(value, "__boundary_handle__", None)
        if isinstance(value, _RemoteIterator) and kind == "iterator":
            return value.handle
        if kind == "function" and isinstance(handle, int):
            return handle
        raise wire.NotPlainData(f"a {kind} made by the tests")

    def rebuild(self, kind: str, handle: int) -> Any:  # a stand-in for the draft's own
        if kind == "iterator":
            return _RemoteIterator(self, handle)
        return self.function(handle, f"<function {handle} of the drafted code>", None)

    def function(self, handle: int, name: str, doc: str | None) -> Callable[..., Any]:
        def call(*arguments: Any, **keywords: Any) -> Any:
            __tracebackhide__ = True
            label = _call_label(name, arguments, keywords)
            try:
                message = {
                    "call": handle,
                    "args": wire.encode(list(arguments), self.handle_of),
                    "kwargs": wire.encode(keywords, self.handle_of),
                }
            except wire.NotPlainData as error:
                raise _not_plain(f"{label} was given {error}", "the drafted code") from None
            return self.request(message, label)

        call.__name__ = call.__qualname__ = name
        call.__doc__ = doc
        call.__module__ = self.module_name
        call.__boundary_handle__ = handle  # type: ignore[attr-defined]
        return call

    def request(self, message: dict[str, Any], label: str) -> Any:
        __tracebackhide__ = True
        with self.lock:
            if self.ended is not None:
                raise DraftEnded(
                    f"{label} was not run: the drafted code's process ended {self.ended}"
                )
            self.calls += 1
            number = self.calls
            try:
                wire.send(self.channel, {"id": number, **message})
                reply = wire.receive(self.channel)
            except (EOFError, OSError):
                self.ended = f"during {label}"
                raise DraftEnded(
                    f"the drafted code's process ended during {label} (it exited or crashed)"
                ) from None
            except wire.BrokenMessage as error:
                self.ended = f"after a broken reply to {label}"
                raise BrokenReply(f"{label} got a broken reply: {error}") from None
            if reply.get("id") != number:
                self.ended = f"after a broken reply to {label}"
                raise BrokenReply(f"{label} got a reply to another call")
        self._show_printed(reply)
        return self._outcome(reply, label)

    def _outcome(self, reply: dict[str, Any], label: str) -> Any:
        __tracebackhide__ = True
        if "returned" in reply:
            try:
                return wire.decode(reply["returned"], self.rebuild)
            except wire.BrokenMessage as error:
                raise BrokenReply(f"{label} got a broken reply: {error}") from None
        if isinstance(reply.get("refused"), str):
            raise _not_plain(f"{label} returned {wire.short(reply['refused'], 200)}")
        if isinstance(reply.get("raised"), dict):
            raise self.exception(reply["raised"], label)
        raise BrokenReply(f"{label} got a reply that is neither a value nor an error")

    def exception_class(self, lineage: Any) -> type[BaseException]:
        # built-in exceptions are themselves; any other is made here once, same module and
        # name, derived from the class made for its parent in the lineage
        usable = isinstance(lineage, list) and 0 < len(lineage) <= MAX_LINEAGE
        if not usable or not all(
            isinstance(entry, list) and len(entry) == 2 and all(isinstance(p, str) for p in entry)
            for entry in lineage
        ):
            raise BrokenReply("an exception without a usable class")
        made: type[BaseException] = Exception
        for module, name in reversed(lineage):
            found = getattr(builtins, name, None) if module == "builtins" else None
            if isinstance(found, type) and issubclass(found, BaseException):
                made = found
                continue
            key = (module, name)
            if key not in self.exceptions:
                attributes = {"__module__": module, "__qualname__": name}
                try:
                    self.exceptions[key] = type(name.rpartition(".")[2], (made,), attributes)
                except TypeError:  # a base that cannot be subclassed so: use it as it is
                    self.exceptions[key] = made
            made = self.exceptions[key]
        return made

    def exception(self, raised: dict[str, Any], label: str) -> Exception:
        kind = self.exception_class(raised.get("lineage"))
        message = wire.short(raised.get("message", ""), MAX_MESSAGE)
        if not issubclass(kind, Exception):  # SystemExit, KeyboardInterrupt, ...
            return DraftRaised(f"{label} raised {kind.__name__}: {message}".rstrip(": "))
        arguments: Any = None
        with contextlib.suppress(wire.BrokenMessage):
            if isinstance(raised.get("args"), list):
                arguments = wire.decode(raised["args"])
        for attempt in ((arguments,) if arguments is not None else ()) + ([message],):
            try:
                return kind(*attempt)
            except Exception:  # noqa: S112 - a constructor that wants other arguments
                continue
        return DraftRaised(f"{label} raised {kind.__name__}: {message}")

    def fill(self, module: types.ModuleType) -> None:
        """Give the stand-in module the drafted module's names (ImportError: it did not import)."""
        if self.hello is None:
            raise ImportError(
                f"the drafted module {self.module_name} does not import: {self.import_error}"
            )
        names = self.hello.get("names")
        if not isinstance(names, dict):
            raise ImportError(f"the drafted module {self.module_name} sent no names")
        module.__doc__ = self.hello.get("doc") if isinstance(self.hello.get("doc"), str) else None
        opaque: dict[str, str] = {}
        for name, described in names.items():
            if isinstance(described, dict):
                self._define(module, name, described, opaque)

        def missing(name: str) -> Any:
            if name in opaque:
                raise _not_plain(f"{self.module_name}.{name} is {opaque[name]}")
            raise AttributeError(f"module {self.module_name!r} has no attribute {name!r}")

        module.__getattr__ = missing  # type: ignore[method-assign]

    def _define(
        self, module: types.ModuleType, name: str, described: dict[str, Any], opaque: dict[str, str]
    ) -> None:
        kind = described.get("kind")
        if kind == "function" and isinstance(described.get("handle"), int):
            doc = described.get("doc") if isinstance(described.get("doc"), str) else None
            setattr(module, name, self.function(described["handle"], name, doc))
        elif kind == "exception":
            try:
                setattr(module, name, self.exception_class(described.get("lineage")))
            except BrokenReply:
                opaque[name] = "an exception class that cannot be described"
        elif kind == "value":
            try:
                setattr(module, name, wire.decode(described.get("value"), self.rebuild))
            except wire.BrokenMessage:
                opaque[name] = "a value that arrived broken"
        else:
            opaque[name] = f"an object of type {wire.short(described.get('type', '?'), 100)}"


class _DraftImporter(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes `import <module>` give the stand-in module (first on `sys.meta_path`)."""

    def __init__(self, draft: _Draft) -> None:
        self.draft = draft

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.draft.module_name:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin="the drafted code's process")

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        self.draft.fill(module)


def _failure(report: pytest.TestReport | pytest.CollectReport) -> tuple[str, str]:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        return wire.short(longrepr[2], MAX_MESSAGE), ""
    crash = getattr(longrepr, "reprcrash", None)
    last = (report.longreprtext.strip().splitlines() or [""])[-1]
    message = getattr(crash, "message", None) or last
    return wire.short(message, MAX_MESSAGE), wire.short(report.longreprtext, MAX_TRACEBACK)


def _outcome(reports: Sequence[pytest.TestReport]) -> tuple[str, pytest.TestReport | None]:
    for report in reports:
        if report.when == "setup" and not report.passed:
            return ("error" if report.failed else "skipped"), report
        if report.when == "call":
            if hasattr(report, "wasxfail"):
                return ("xfailed" if report.skipped else "xpassed"), report
            if not report.passed:
                return ("failed" if report.failed else "skipped"), report
        if report.when == "teardown" and report.failed:
            return "error", report
    return "passed", None


class _Harness:
    """The plugin's hooks: bookkeeping of the tests, written to the report pipe (JSON lines)."""

    def __init__(self, report: int) -> None:
        self.report = report
        self.phases: dict[str, list[pytest.TestReport]] = {}

    def write(self, **event: Any) -> None:
        data = (json.dumps(event) + "\n").encode("utf-8", errors="replace")
        while data:
            data = data[os.write(self.report, data) :]

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.write(
                event="collect_error",
                nodeid=report.nodeid,
                message=wire.short(report.longreprtext, MAX_TRACEBACK),
            )

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        items = [
            {"nodeid": item.nodeid, "function": getattr(item, "originalname", None) or item.name}
            for item in session.items
        ]
        self.write(event="collected", items=items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        phases = self.phases.setdefault(report.nodeid, [])
        phases.append(report)
        if report.when != "teardown":
            return
        decided, deciding = _outcome(phases)
        message, traceback = _failure(deciding) if deciding is not None else ("", "")
        self.write(
            event="result",
            nodeid=report.nodeid,
            outcome=decided,
            message=message,
            traceback=traceback,
        )

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.write(event="finished", exitstatus=int(exitstatus))


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the options naming the channel, the report pipe and the module."""
    group = parser.getgroup("critic-loop boundary")
    group.addoption("--boundary-channel", type=int, help="the socket to the draft process")
    group.addoption("--boundary-report", type=int, help="the pipe the report goes to")
    group.addoption("--boundary-module", help="the drafted module's name")


def pytest_configure(config: pytest.Config) -> None:
    """Meet the draft process, install the import hook, and start the report."""
    channel = config.getoption("boundary_channel")
    if channel is None:
        return
    sys.set_int_max_str_digits(0)  # big integers cross (the run's time limit bounds them)
    harness = _Harness(config.getoption("boundary_report"))
    draft = _Draft(socket.socket(fileno=channel), config.getoption("boundary_module"))
    draft.greet()
    harness.write(event="module", error=draft.import_error)
    sys.meta_path.insert(0, _DraftImporter(draft))
    config.pluginmanager.register(harness, "critic-loop-harness")
