"""The report file every benchmark writes: its settings and one row per cell, saved as it goes.

    {"format": 2, "benchmark": "judge", "settings": {...}, "rows": [...]}

The settings say what ran (model, server, `--set`, each configuration's own settings and
complete resolved `Context`, the tasks, critic_loop's version and git commit, when) and
list every invocation under `runs`. The file is rewritten atomically after every row, so a
run stopped at any point leaves a valid report that `--resume` continues: a cell with a row
is skipped unless the row records an error. A resumed run must describe the same
experiment (the settings a benchmark names in `COMPARED`, each configuration's own).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

import critic_loop
from benchmarks.harness.configs import Configuration, critic_loop_version

logger = logging.getLogger(__name__)

FORMAT = 2


class ReportError(ValueError):
    """A report cannot be read, would be overwritten, or belongs to another experiment."""


@dataclass(kw_only=True)
class Row:
    """What one configuration did on one task (in one repeat); benchmarks add their fields."""

    task: str
    """The task's id."""
    config: str
    """The configuration's name."""
    repeat: int = 1
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_estimated: bool = False
    """True when the server reported no usage for some call and counts are estimates."""
    wall_seconds: float = 0.0
    error: str | None = None
    """Why the cell has no result (a server or harness failure); it runs again on --resume."""

    @property
    def key(self) -> tuple[int, str, str]:
        """(repeat, configuration, task): the cell the row is of."""
        return self.repeat, self.config, self.task

    @property
    def model_calls(self) -> int:
        """Every model call the cell made."""
        raise NotImplementedError

    @property
    def tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens

    def as_json(self) -> dict[str, Any]:
        """Return the row as JSON data, with its derived counts."""
        return {**asdict(self), "model_calls": self.model_calls, "tokens": self.tokens}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Read a row back (derived and unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


def git_commit(directory: Path | None = None) -> str | None:
    """Return the commit checked out where critic_loop is installed from (+ "-dirty"), if any."""
    where = directory or Path(critic_loop.__file__).resolve().parent

    def git(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *arguments], cwd=where, capture_output=True, text=True, timeout=10
        )

    try:
        commit, status = git("rev-parse", "HEAD"), git("status", "--porcelain", "-uno")
    except (OSError, subprocess.SubprocessError):
        return None
    if commit.returncode != 0:
        return None
    return commit.stdout.strip() + ("-dirty" if status.stdout.strip() else "")


def now() -> str:
    """Return the current UTC time, ISO 8601, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def write_atomically(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` (a temporary file, then a rename)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    os.replace(temporary, path)


def load(path: Path, benchmark: str | None = None) -> dict[str, Any]:
    """Read a report file (of `benchmark`, if named).

    Raises:
        ReportError: it is missing, not JSON, or not such a report of this format.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as failure:
        raise ReportError(f"cannot read {path}: {failure.strerror or failure}") from failure
    except ValueError as failure:
        raise ReportError(f"{path} is not JSON: {failure}") from failure
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or "settings" not in data
        or benchmark not in (None, data.get("benchmark"))
    ):
        raise ReportError(f"{path} is not a {benchmark or 'benchmark'} report (format {FORMAT})")
    return data


def describe(
    model: str,
    base_url: str | None,
    extra: dict[str, Any],
    configurations: list[Configuration],
    table: dict[str, Any],
    task_ids: list[str],
    **more: Any,
) -> dict[str, Any]:
    """Describe a run for its report.

    The model, server, `--set` (`extra`), configurations (with their own settings from
    `table`), tasks, and what else a benchmark records (`more`).
    """
    run = {
        "started": now(),
        "critic_loop_version": critic_loop_version(),
        "git_commit": git_commit(),
    }
    return {
        "model": model,
        "base_url": base_url,
        "set": extra,
        **more,
        "configs": [c.name for c in configurations],
        "config_settings": {c.name: table[c.name] for c in configurations},
        "contexts": {c.name: c.context().model_dump(mode="json") for c in configurations},
        "task_ids": task_ids,
        "environment": sorted(name for name in os.environ if name.startswith("CRITIC_LOOP_")),
        **run,
        "runs": [run],
    }


RowT = TypeVar("RowT", bound=Row)


class Report(Generic[RowT]):
    """A report file being written: settings, rows, and saving after every row."""

    BENCHMARK: ClassVar[str]
    ROW: ClassVar[type[Row]]
    COMPARED: ClassVar[tuple[str, ...]] = ("model", "base_url", "set")
    """Settings a resumed run must share with the report it continues."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        """Wrap report `data` that lives at `path` (use `create` or `resume`)."""
        self.path = path
        self.data = data
        self.rows: dict[tuple[int, str, str], RowT] = {}
        for raw in data.get("rows", []):
            row: Any = self.ROW.from_json(raw)
            self.rows[row.key] = row
        self.lock = threading.RLock()
        """Held while the report changes (cells may run in threads)."""

    @classmethod
    def create(cls, path: Path, settings: dict[str, Any], *, overwrite: bool = False) -> Self:
        """Start a new report at `path` and save it.

        Raises:
            ReportError: the file exists and `overwrite` is false.
        """
        if path.exists() and not overwrite:
            raise ReportError(f"{path} exists: continue it with --resume {path}, or --overwrite")
        data = {"format": FORMAT, "benchmark": cls.BENCHMARK, "settings": settings, "rows": []}
        report = cls(path, data)
        report.save()
        return report

    @classmethod
    def resume(cls, path: Path, settings: dict[str, Any]) -> Self:
        """Open the report at `path` to continue it with this run's `settings`, and save it.

        Configurations and tasks are merged; this run is added to `settings.runs`.

        Raises:
            ReportError: the file cannot be read, or it records another experiment.
        """
        data = load(path, cls.BENCHMARK)
        recorded = data["settings"]
        differences = [
            f"{key}: report has {recorded.get(key)!r}, this run {settings.get(key)!r}"
            for key in cls.COMPARED
            if recorded.get(key) != settings.get(key)
        ]
        for name, own in settings["config_settings"].items():
            before = recorded["config_settings"].get(name)
            if before is not None and before != own:
                differences.append(f"configuration {name!r}: report has {before}, this run {own}")
        if differences:
            raise ReportError(
                f"{path} records another experiment; start a new report instead:\n  "
                + "\n  ".join(differences)
            )
        if settings["git_commit"] not in {run.get("git_commit") for run in recorded["runs"]}:
            logger.warning("resuming %s with another critic_loop commit than it began with", path)
        merged = {**recorded}
        for key in ("configs", "task_ids"):
            merged[key] = list(dict.fromkeys([*recorded[key], *settings[key]]))
        merged["runs"] = [*recorded["runs"], *settings["runs"]]
        for key in ("config_settings", "contexts"):
            merged[key] = {**recorded[key], **settings[key]}
        report = cls(path, {**data, "settings": merged})
        report.save()
        return report

    @property
    def settings(self) -> dict[str, Any]:
        """The run's settings (see `describe`)."""
        settings: dict[str, Any] = self.data["settings"]
        return settings

    def done(self, key: tuple[int, str, str]) -> bool:
        """Tell whether the cell has a row without an error (it will not run again)."""
        row = self.rows.get(key)
        return row is not None and row.error is None

    def record(self, row: RowT) -> None:
        """Add (or replace) the row of its cell and save the report."""
        with self.lock:
            self.rows[row.key] = row
            self.save()

    def save(self) -> None:
        """Write the report atomically (a reader never sees half a file)."""
        with self.lock:
            self.settings["updated"] = now()
            self.data["rows"] = [row.as_json() for row in self.rows.values()]
            write_atomically(self.path, self.data)

    def reuse(self, source: Path, configs: dict[str, str]) -> int:
        """Copy the rows `source` has for `configs` (this run's name -> `source`'s name).

        Only rows without an error are copied, of this run's tasks, and only when `source`
        ran each configuration with the same complete `Context` and the same compared
        settings. The caller vouches that critic-loop's code for them did not change;
        `settings.reused` records what was copied, from which file and which commits.

        Raises:
            ReportError: `source` cannot be read, or it ran them differently.
        """
        data = load(source, self.BENCHMARK)
        theirs = data["settings"]
        problems = [
            f"{key}: {source} has {theirs.get(key)!r}, this report {self.settings.get(key)!r}"
            for key in self.COMPARED
            if theirs.get(key) != self.settings.get(key)
        ]
        for mine, named in configs.items():
            if mine not in self.settings["contexts"]:
                problems.append(f"configuration {mine!r} is not one of this run's")
            elif theirs["contexts"].get(named) != self.settings["contexts"][mine]:
                problems.append(
                    f"configuration {named!r} of {source} ran with other settings than this "
                    f"run's {mine!r}"
                )
        if problems:
            raise ReportError(f"cannot reuse rows of {source}:\n  " + "\n  ".join(problems))
        as_mine = {named: mine for mine, named in configs.items()}
        tasks = set(self.settings["task_ids"])
        copied = [
            self.ROW.from_json({**raw, "config": as_mine[raw["config"]]})
            for raw in data["rows"]
            if raw["config"] in as_mine and raw["task"] in tasks and raw.get("error") is None
        ]
        for row in copied:
            self.rows.setdefault(row.key, row)  # type: ignore[arg-type]
        commits = [run.get("git_commit") for run in theirs["runs"]]
        self.settings.setdefault("reused", []).append(
            {
                "from": str(source),
                "configs": configs,
                "rows": len(copied),
                "commits": commits,
                "at": now(),
            }
        )
        self.save()
        return len(copied)
