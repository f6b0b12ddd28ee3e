"""The report file: a run's settings and one row per (task, configuration), saved as it goes.

The file is rewritten (atomically: a temporary file, then a rename) after every row, so a
run stopped at any point leaves a valid report, and `--resume` continues it: pairs with a
row are skipped, except rows that record an error, which run again. A resumed run must
describe the same experiment (model, server, rounds, shared and per-configuration
settings); every invocation is listed under `settings.runs` with its critic_loop version
and commit.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import critic_loop
from benchmarks.effectiveness.configs import Configuration, critic_loop_version

logger = logging.getLogger(__name__)

FORMAT = 1
"""The report format's version."""

COMPARED_SETTINGS = ("model", "base_url", "rounds", "set")
"""Settings a resumed run must share with the report it continues."""


class ReportError(ValueError):
    """A report cannot be read, would be overwritten, or belongs to another experiment."""


@dataclass
class Row:
    """What one configuration did on one task."""

    task: str
    kind: str
    config: str
    solved: bool = False
    outcome: str | None = None
    outcome_reason: str | None = None
    rounds: int = 0
    """Graded rounds. (Rows recorded before `drafts` existed counted critiques here, so
    the candidates of one round counted apart.)"""
    drafts: int = 0
    """Drafts written (every candidate of every round)."""
    worker_calls: int = 0
    """Worker model calls, repeated requests after a malformed reply included."""
    critic_calls: int = 0
    """Every other model call: judges and their retries (deterministic checks make none)."""
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_estimated: bool = False
    """True when the server reported no usage for some call and counts are approximations."""
    wall_seconds: float = 0.0
    """Time the loop ran (grading excluded)."""
    final_round: int | None = None
    final: str | None = None
    """The result graded: the run's `final` draft."""
    failing: list[str] = field(default_factory=list)
    """The grader's failing criteria ("tests" for coding tasks)."""
    grade_evidence: str = ""
    error: str | None = None
    """Why the pair has no result (an exception in the run or grading); None if it has."""
    draft_grades: list[dict[str, Any]] = field(default_factory=list)
    """Every draft of the run: round, candidate, whether it passed the loop's checks
    (`visible`), whether the hidden grader solves it (`solved`), and the agreement support
    the critic recorded (`support`, 1 when not compared)."""

    @property
    def visible_pass(self) -> bool:
        """Whether the loop's own checks passed the result (the run ended `passed`)."""
        return self.error is None and self.outcome == "passed"

    @property
    def visible_pass_hidden_fail(self) -> bool:
        """Whether the result passed the loop's checks but not the hidden grader."""
        return self.visible_pass and not self.solved

    @property
    def model_calls(self) -> int:
        """Worker and critic calls together."""
        return self.worker_calls + self.critic_calls

    @property
    def tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens

    def as_json(self) -> dict[str, Any]:
        """Return the row as JSON data, with its derived counts."""
        return {**asdict(self), "model_calls": self.model_calls, "tokens": self.tokens}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Row:
        """Read a row back (derived and unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


def git_commit(directory: Path | None = None) -> str | None:
    """Return the commit checked out where critic_loop is installed from (+ "-dirty"), if any."""
    where = directory or Path(critic_loop.__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10
        )
        if commit.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    dirty = "-dirty" if status.returncode == 0 and status.stdout.strip() else ""
    return commit.stdout.strip() + dirty


def write_atomically(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` atomically (a reader never sees half a file)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    os.replace(temporary, path)


def read_json(path: Path, error: type[Exception]) -> Any:
    """Read a report file's JSON; a missing or unreadable file, or bad JSON, raises `error`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as failure:
        raise error(f"cannot read {path}: {failure.strerror or failure}") from failure
    except ValueError as failure:
        raise error(f"{path} is not JSON: {failure}") from failure


def now() -> str:
    """Return the current UTC time, ISO 8601, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def build_settings(
    *,
    model: str,
    base_url: str | None,
    rounds: int,
    configurations: list[Configuration],
    own_settings: dict[str, dict[str, Any]],
    task_ids: list[str],
    extra: dict[str, Any],
    seed: int | None,
) -> dict[str, Any]:
    """Describe a run for its report.

    `own_settings` are each configuration's settings as its table gives them (what a resumed
    run must match); `contexts` records every configuration's complete resolved `Context`,
    `CRITIC_LOOP_*` environment values included (`environment` names those variables).
    """
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
        "seed": seed,
        "configs": [configuration.name for configuration in configurations],
        "config_settings": {c.name: own_settings[c.name] for c in configurations},
        "contexts": {c.name: c.context().model_dump(mode="json") for c in configurations},
        "task_ids": task_ids,
        "environment": sorted(name for name in os.environ if name.startswith("CRITIC_LOOP_")),
        "critic_loop_version": run["critic_loop_version"],
        "git_commit": run["git_commit"],
        "started": run["started"],
        "runs": [run],
    }


class Report:
    """A report file being written: settings, rows, and saving after every change."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        """Wrap report `data` that lives at `path` (use `create` or `resume`)."""
        self.path = path
        self.data = data
        self.rows: dict[tuple[str, str], Row] = {
            (row.task, row.config): row for row in map(Row.from_json, data.get("rows", []))
        }

    @classmethod
    def create(cls, path: Path, settings: dict[str, Any], *, overwrite: bool = False) -> Report:
        """Start a new report at `path` and save it.

        Raises:
            ReportError: the file exists and `overwrite` is false.
        """
        if path.exists() and not overwrite:
            raise ReportError(
                f"{path} exists: continue it with --resume {path}, or pass --overwrite"
            )
        report = cls(path, {"format": FORMAT, "settings": settings, "rows": []})
        report.save()
        return report

    @classmethod
    def resume(cls, path: Path, settings: dict[str, Any]) -> Report:
        """Open the report at `path` to continue it with `settings` (this run's), and save it.

        The task ids and configurations are merged; this run is added to `settings.runs`.

        Raises:
            ReportError: the file cannot be read, or it records another experiment.
        """
        data = load(path)
        recorded = data["settings"]
        differences = [
            f"{key}: report has {recorded.get(key)!r}, this run {settings.get(key)!r}"
            for key in COMPARED_SETTINGS
            if recorded.get(key) != settings.get(key)
        ]
        for name, config_settings in settings["config_settings"].items():
            before = recorded.get("config_settings", {}).get(name)
            if before is not None and before != config_settings:
                differences.append(
                    f"configuration {name!r}: report has {before}, this run {config_settings}"
                )
        if differences:
            raise ReportError(
                f"{path} records another experiment; start a new report instead:\n  "
                + "\n  ".join(differences)
            )
        commits = {run.get("git_commit") for run in recorded.get("runs", [])}
        if settings["runs"][0].get("git_commit") not in commits:
            logger.warning(
                "resuming %s with a different critic_loop commit than it was started with", path
            )
        merged = dict(recorded)
        merged["configs"] = list(dict.fromkeys([*recorded["configs"], *settings["configs"]]))
        merged["task_ids"] = list(dict.fromkeys([*recorded["task_ids"], *settings["task_ids"]]))
        merged["config_settings"] = {**recorded["config_settings"], **settings["config_settings"]}
        merged["contexts"] = {**recorded.get("contexts", {}), **settings.get("contexts", {})}
        merged["runs"] = [*recorded.get("runs", []), *settings["runs"]]
        report = cls(path, {**data, "settings": merged})
        report.save()
        return report

    @property
    def settings(self) -> dict[str, Any]:
        """The run's settings (see `build_settings`)."""
        settings: dict[str, Any] = self.data["settings"]
        return settings

    def reuse(self, source: Path, configs: dict[str, str]) -> int:
        """Copy into this report the rows `source` has for `configs` (and this run's tasks).

        `configs` maps each configuration of this run to the name `source` gave it. Only
        rows without an error are copied, and only when `source` ran each configuration
        with the same complete `Context` and the same model, server, rounds and `--set` as
        this report. The caller vouches that critic-loop's code for them did not change;
        `settings.reused` records what was copied, from which file and which commits.
        Returns the number of rows copied.

        Raises:
            ReportError: `source` cannot be read, or it ran them differently.
        """
        data = load(source)
        recorded = data["settings"]
        problems = [
            f"{key}: {source} has {recorded.get(key)!r}, this report {self.settings.get(key)!r}"
            for key in COMPARED_SETTINGS
            if recorded.get(key) != self.settings.get(key)
        ]
        for name, theirs_named in configs.items():
            mine = self.settings.get("contexts", {}).get(name)
            theirs = recorded.get("contexts", {}).get(theirs_named)
            if mine is None:
                problems.append(f"configuration {name!r} is not one of this run's")
            elif theirs != mine:
                problems.append(
                    f"configuration {theirs_named!r} of {source} ran with other settings "
                    f"than this run's {name!r}"
                )
        if problems:
            raise ReportError(f"cannot reuse rows of {source}:\n  " + "\n  ".join(problems))
        tasks = set(self.settings["task_ids"])
        as_mine = {theirs: mine for mine, theirs in configs.items()}
        copied = [
            Row.from_json({**row.as_json(), "config": as_mine[row.config]})
            for row in rows_of(data)
            if row.config in as_mine and row.task in tasks and row.error is None
        ]
        for row in copied:
            self.rows.setdefault((row.task, row.config), row)
        self.settings.setdefault("reused", []).append(
            {
                "from": str(source),
                "configs": configs,
                "rows": len(copied),
                "commits": [run.get("git_commit") for run in recorded.get("runs", [])],
                "at": now(),
            }
        )
        self.save()
        return len(copied)

    def done(self, task: str, config: str) -> bool:
        """Tell whether the pair has a row without an error (it will not run again)."""
        row = self.rows.get((task, config))
        return row is not None and row.error is None

    def record(self, row: Row) -> None:
        """Add (or replace) the row of its pair and save the report."""
        self.rows[(row.task, row.config)] = row
        self.save()

    def save(self) -> None:
        """Write the report atomically (a reader never sees half a file)."""
        self.settings["updated"] = now()
        self.data["rows"] = [row.as_json() for row in self.rows.values()]
        write_atomically(self.path, self.data)


def load(path: Path) -> dict[str, Any]:
    """Read a report file.

    Raises:
        ReportError: it is missing, not JSON, or not a report of this format.
    """
    data = read_json(path, ReportError)
    if not isinstance(data, dict) or data.get("format") != FORMAT or "settings" not in data:
        raise ReportError(f"{path} is not an effectiveness report (format {FORMAT})")
    return data


def rows_of(data: dict[str, Any]) -> list[Row]:
    """Return a loaded report's rows."""
    return [Row.from_json(row) for row in data.get("rows", [])]
