"""The report file: a run's settings, one row per (repeat, mode, task), and the rules learned.

Like the effectiveness benchmark's report, the file is rewritten atomically after every
row, so a run stopped at any point leaves a valid report that `--resume` continues: rows
already there are skipped (rows that record an error run again), and the memory-on
sequences carry on in the stores they were learning in, which live beside the report
(`stores_dir`). A resumed run must describe the same experiment (model, server, rounds,
`--set`, repeats, seed, tasks).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from benchmarks.effectiveness.configs import critic_loop_version
from benchmarks.effectiveness.report import git_commit, now, read_json, write_atomically

FORMAT = 1
"""The report format's version."""

KIND = "memory"
"""What a report of this benchmark says it is."""

COMPARED_SETTINGS = ("model", "base_url", "rounds", "set", "repeats", "seed", "task_ids")
"""Settings a resumed run must share with the report it continues."""

Mode = Literal["off", "on"]
MODES: tuple[Mode, ...] = ("off", "on")
"""Memory off, then memory on, for every task of the sequence."""


class ReportError(ValueError):
    """A report cannot be read, would be overwritten, or belongs to another experiment."""


@dataclass
class Row:
    """What one mode did on one task of one repeat's sequence."""

    repeat: int
    mode: str
    position: int
    """The task's place in the sequence (0 first)."""
    task: str
    family: str | None
    later: bool
    """One of its family's later tasks (where memory can help)."""
    thread_id: str = ""
    passed: bool = False
    outcome: str | None = None
    rounds: int = 0
    """Graded rounds (critiques)."""
    failing: list[str] = field(default_factory=list)
    """The criteria the kept draft still fails."""
    worker_calls: int = 0
    critic_calls: int = 0
    distiller_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    """Worker, critic and distiller tokens together."""
    tokens_estimated: bool = False
    wall_seconds: float = 0.0
    recalled: list[dict[str, str]] = field(default_factory=list)
    """The rules given to the worker: id and text."""
    lessons: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    memory_errors: list[str] = field(default_factory=list)
    final: str | None = None
    error: str | None = None
    """Why the row has no result (an exception in the run); None if it has."""

    @property
    def model_calls(self) -> int:
        """Worker, critic and distiller calls together."""
        return self.worker_calls + self.critic_calls + self.distiller_calls

    @property
    def tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens

    @property
    def key(self) -> tuple[int, str, str]:
        """(repeat, mode, task): what identifies the row."""
        return self.repeat, self.mode, self.task

    def as_json(self) -> dict[str, Any]:
        """Return the row as JSON data, with its derived counts."""
        return {**asdict(self), "model_calls": self.model_calls, "tokens": self.tokens}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Row:
        """Read a row back (derived and unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


def build_settings(
    *,
    model: str,
    base_url: str | None,
    rounds: int,
    extra: dict[str, Any],
    repeats: int,
    seed: int | None,
    task_ids: list[str],
    families: dict[str, str],
    contexts: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """Describe a run for its report (`contexts`: each mode's resolved `Context`)."""
    run = {
        "started": now(),
        "critic_loop_version": critic_loop_version(),
        "git_commit": git_commit(),
    }
    return {
        "model": model,
        "base_url": base_url,
        "rounds": rounds,
        "set": extra,
        "repeats": repeats,
        "seed": seed,
        "task_ids": task_ids,
        "families": families,
        "contexts": contexts,
        "environment": sorted(name for name in os.environ if name.startswith("CRITIC_LOOP_")),
        **run,
        "runs": [run],
    }


class Report:
    """A report file being written: settings, rows, rules, and saving after every change."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        """Wrap report `data` that lives at `path` (use `create` or `resume`)."""
        self.path = path
        self.data = data
        self.rows: dict[tuple[int, str, str], Row] = {
            row.key: row for row in map(Row.from_json, data.get("rows", []))
        }

    @property
    def stores_dir(self) -> Path:
        """Where the memory-on sequences keep their stores (beside the report)."""
        return self.path.with_name(self.path.name + ".stores")

    def store_path(self, repeat: int, mode: str) -> Path:
        """Return the SQLite file of one repeat's sequence in one mode."""
        return self.stores_dir / f"repeat{repeat}-memory-{mode}.sqlite"

    @classmethod
    def create(cls, path: Path, settings: dict[str, Any], *, overwrite: bool = False) -> Report:
        """Start a new report at `path` (and fresh stores beside it) and save it.

        Raises:
            ReportError: the file exists and `overwrite` is false.
        """
        if path.exists() and not overwrite:
            raise ReportError(
                f"{path} exists: continue it with --resume {path}, or pass --overwrite"
            )
        report = cls(path, {"format": FORMAT, "kind": KIND, "settings": settings, "rows": []})
        shutil.rmtree(report.stores_dir, ignore_errors=True)
        report.save()
        return report

    @classmethod
    def resume(cls, path: Path, settings: dict[str, Any]) -> Report:
        """Open the report at `path` to continue it with `settings` (this run's), and save it.

        Raises:
            ReportError: the file cannot be read, it records another experiment, or a
                sequence it started has lost its store.
        """
        data = load(path)
        recorded = data["settings"]
        differences = [
            f"{key}: report has {recorded.get(key)!r}, this run {settings.get(key)!r}"
            for key in COMPARED_SETTINGS
            if recorded.get(key) != settings.get(key)
        ]
        if differences:
            raise ReportError(
                f"{path} records another experiment; start a new report instead:\n  "
                + "\n  ".join(differences)
            )
        report = cls(
            path, {**data, "settings": {**recorded, "runs": [*recorded["runs"], *settings["runs"]]}}
        )
        started = {(row.repeat, row.mode) for row in report.rows.values() if row.mode == "on"}
        lost = [
            report.store_path(*key)
            for key in sorted(started)
            if not report.store_path(*key).exists()
        ]
        if lost:
            raise ReportError(
                f"{path}: the store of a memory-on sequence is gone ({lost[0]}); its later "
                "tasks cannot run as they would have: start a new report"
            )
        report.save()
        return report

    @property
    def settings(self) -> dict[str, Any]:
        """The run's settings (see `build_settings`)."""
        settings: dict[str, Any] = self.data["settings"]
        return settings

    def done(self, key: tuple[int, str, str]) -> bool:
        """Tell whether the row `key` exists without an error (it will not run again)."""
        row = self.rows.get(key)
        return row is not None and row.error is None

    def record(self, row: Row, rules: list[dict[str, Any]] | None = None) -> None:
        """Add (or replace) a row, and the rules its sequence's store holds now; save."""
        self.rows[row.key] = row
        if rules is not None:
            self.data.setdefault("rules", {})[f"repeat{row.repeat}"] = rules
        self.save()

    def save(self) -> None:
        """Write the report atomically (a reader never sees half a file)."""
        self.settings["updated"] = now()
        self.data["rows"] = [row.as_json() for row in self.rows.values()]
        write_atomically(self.path, self.data)


def load(path: Path) -> dict[str, Any]:
    """Read a report file.

    Raises:
        ReportError: it is missing, not JSON, or not a memory report of this format.
    """
    data = read_json(path, ReportError)
    if not isinstance(data, dict) or data.get("kind") != KIND or data.get("format") != FORMAT:
        raise ReportError(f"{path} is not a memory benchmark report (format {FORMAT})")
    return data


def rows_of(data: dict[str, Any]) -> list[Row]:
    """Return a loaded report's rows."""
    return [Row.from_json(row) for row in data.get("rows", [])]
