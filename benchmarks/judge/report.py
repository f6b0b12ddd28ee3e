"""The judge benchmark's report file: settings and one row per (artifact, configuration).

Like the effectiveness report, it is rewritten atomically after every row, so a run
stopped at any point leaves a valid file that `--resume` continues: rows are skipped
unless they record an error (a server failure, not a judge that gave no verdict: that is
a result, and it stays). A resumed run must describe the same experiment (model, server,
`--set`, each configuration's settings).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from benchmarks.effectiveness.configs import Configuration, critic_loop_version
from benchmarks.effectiveness.report import git_commit, now, read_json, write_atomically

FORMAT = 1
"""The report format's version."""

KIND = "judge"
"""What the report is a report of (so one benchmark never reads another's file)."""

COMPARED_SETTINGS = ("model", "base_url", "set")
"""Settings a resumed run must share with the report it continues."""


class ReportError(ValueError):
    """A report cannot be read, would be overwritten, or belongs to another experiment."""


@dataclass
class Row:
    """What one judge configuration decided on one artifact."""

    case: str
    kind: str
    config: str
    decisions: dict[str, bool | None] = field(default_factory=dict)
    """Criterion id -> the critic's decision (None: no verdict on the artifact)."""
    evidence: dict[str, str] = field(default_factory=dict)
    """Criterion id -> the critic's evidence (for reading disagreements)."""
    verdict: bool = False
    """Whether the critic gave a verdict at all."""
    no_verdict: str | None = None
    """Why the critic gave no verdict (its last rejected answer)."""
    calls: int = 0
    """Critic model calls the grade took (retries and samples included)."""
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_estimated: bool = False
    seconds: float = 0.0
    error: str | None = None
    """A server or harness failure: the row runs again on --resume."""

    @property
    def tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens

    def as_json(self) -> dict[str, Any]:
        """Return the row as JSON data."""
        return {**asdict(self), "tokens": self.tokens}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Row:
        """Read a row back (derived and unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


def build_settings(
    *,
    model: str,
    base_url: str | None,
    configurations: list[Configuration],
    own_settings: dict[str, dict[str, Any]],
    case_ids: list[str],
    extra: dict[str, Any],
) -> dict[str, Any]:
    """Describe a run for its report (each configuration's complete `Context` included)."""
    run = {
        "started": now(),
        "critic_loop_version": critic_loop_version(),
        "git_commit": git_commit(),
    }
    return {
        "model": model,
        "base_url": base_url,
        "set": extra,
        "configs": [c.name for c in configurations],
        "config_settings": {c.name: own_settings[c.name] for c in configurations},
        "contexts": {c.name: c.context().model_dump(mode="json") for c in configurations},
        "case_ids": case_ids,
        "environment": sorted(name for name in os.environ if name.startswith("CRITIC_LOOP_")),
        **run,
        "runs": [run],
    }


class Report:
    """A report file being written: settings, rows, and saving after every row."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        """Wrap report `data` that lives at `path` (use `create` or `resume`)."""
        self.path = path
        self.data = data
        self.rows: dict[tuple[str, str], Row] = {
            (row.case, row.config): row for row in map(Row.from_json, data.get("rows", []))
        }

    @classmethod
    def create(cls, path: Path, settings: dict[str, Any], *, overwrite: bool = False) -> Report:
        """Start a new report at `path` and save it.

        Raises:
            ReportError: the file exists and `overwrite` is false.
        """
        if path.exists() and not overwrite:
            raise ReportError(f"{path} exists: continue it with --resume {path}, or --overwrite")
        report = cls(path, {"format": FORMAT, "kind": KIND, "settings": settings, "rows": []})
        report.save()
        return report

    @classmethod
    def resume(cls, path: Path, settings: dict[str, Any]) -> Report:
        """Open the report at `path` to continue it with this run's `settings`.

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
        for name, own in settings["config_settings"].items():
            before = recorded["config_settings"].get(name)
            if before is not None and before != own:
                differences.append(f"configuration {name!r}: report has {before}, this run {own}")
        if differences:
            raise ReportError(
                f"{path} records another experiment; start a new report instead:\n  "
                + "\n  ".join(differences)
            )
        merged = dict(recorded)
        merged["configs"] = list(dict.fromkeys([*recorded["configs"], *settings["configs"]]))
        merged["case_ids"] = list(dict.fromkeys([*recorded["case_ids"], *settings["case_ids"]]))
        merged["config_settings"] = {**recorded["config_settings"], **settings["config_settings"]}
        merged["contexts"] = {**recorded["contexts"], **settings["contexts"]}
        merged["runs"] = [*recorded["runs"], *settings["runs"]]
        report = cls(path, {**data, "settings": merged})
        report.save()
        return report

    @property
    def settings(self) -> dict[str, Any]:
        """The run's settings (see `build_settings`)."""
        settings: dict[str, Any] = self.data["settings"]
        return settings

    def done(self, case: str, config: str) -> bool:
        """Tell whether the pair has a row without an error (it will not run again)."""
        row = self.rows.get((case, config))
        return row is not None and row.error is None

    def record(self, row: Row) -> None:
        """Add (or replace) the row of its pair and save the report."""
        self.rows[(row.case, row.config)] = row
        self.save()

    def save(self) -> None:
        """Write the report atomically (a reader never sees half a file)."""
        self.settings["updated"] = now()
        self.data["rows"] = [row.as_json() for row in self.rows.values()]
        write_atomically(self.path, self.data)


def load(path: Path) -> dict[str, Any]:
    """Read a report file.

    Raises:
        ReportError: it is missing, not JSON, or not a judge report of this format.
    """
    data = read_json(path, ReportError)
    if not isinstance(data, dict) or data.get("kind") != KIND or data.get("format") != FORMAT:
        raise ReportError(f"{path} is not a judge benchmark report (format {FORMAT})")
    return data


def rows_of(data: dict[str, Any]) -> list[Row]:
    """Return a loaded report's rows."""
    return [Row.from_json(row) for row in data.get("rows", [])]
