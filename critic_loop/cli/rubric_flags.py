"""Criteria written on the command line (`--criterion`, `--check`, `--tests`; docs/commands.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_origin

from critic_loop.errors import UsageProblem
from critic_loop.state.sizes import check_text_depth


def read_text(path: Path, flag: str, holding: str) -> str:
    """Return the text of the file `flag` names, or fail in one line naming the way out."""
    try:
        return path.read_text()
    except FileNotFoundError:
        raise UsageProblem(
            f"{flag} {str(path)!r}: no such file; give the path of {holding}"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise UsageProblem(f"{flag} {str(path)!r} cannot be read: {reason}") from None


def read_json(path: Path, flag: str, holding: str) -> Any:
    """Return the JSON of the file `flag` names, or fail in one line."""
    text = read_text(path, flag, holding)
    try:
        return json.loads(check_text_depth(text, str(path)))
    except ValueError as error:  # not JSON, or nested too deeply
        raise UsageProblem(f"{flag} {str(path)!r}: {error}") from None


def _takes_a_list(name: str) -> bool:
    """Whether some kind's setting `name` takes several values (`|` between them)."""
    from critic_loop.state.rubric import KINDS

    fields = [kind.model_fields.get(name) for kind in KINDS.values()]
    return any(field and get_origin(field.annotation) is list for field in fields)


@dataclass
class WrittenRubric:
    """Criteria from the command line, in order, and where each came from."""

    criteria: list[dict[str, Any]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def label(self, index: int) -> str:
        """Name rubric item `index` as the user wrote it."""
        return self.sources[index] if index < len(self.sources) else f"rubric item {index + 1}"


def _split(text: str, flag: str, shape: str) -> tuple[str, str]:
    identifier, separator, rest = text.partition("=")
    if not separator or not identifier.strip() or not rest.strip():
        raise UsageProblem(f"{flag} {text!r} should look like {shape}")
    return identifier.strip(), rest.strip()


def _criterion_flag(text: str) -> dict[str, Any]:
    identifier, body = _split(text, "--criterion", "ID=TEXT")
    return {"id": identifier, "text": body}


def _value(name: str, raw: str) -> Any:
    if _takes_a_list(name):
        return [item.strip() for item in raw.split("|") if item.strip()]
    try:
        return json.loads(check_text_depth(raw, f"the value of {name}"))
    except json.JSONDecodeError:
        return raw
    except ValueError as error:  # nested too deeply
        raise UsageProblem(str(error)) from None


def check_flag(text: str) -> dict[str, Any]:
    """Read `--check ID=KIND[:NAME=VALUE,...]`."""
    identifier, spec = _split(text, "--check", "ID=KIND[:NAME=VALUE,...]")
    kind, _, settings = spec.partition(":")
    criterion: dict[str, Any] = {"id": identifier, "kind": kind.strip()}
    for setting in filter(None, (part.strip() for part in settings.split(","))):
        name, separator, raw = setting.partition("=")
        if not separator:
            raise UsageProblem(f"--check {text!r}: {setting!r} should look like NAME=VALUE")
        criterion[name.strip()] = _value(name.strip(), raw.strip())
    return criterion


def _tests_flag(text: str) -> dict[str, Any]:
    identifier, separator, path = text.partition("=")
    if not separator:
        identifier, path = "tests", text
    if not Path(path).is_file():
        raise UsageProblem(f"--tests {text!r}: no file {path!r}")
    return {"id": identifier.strip() or "tests", "kind": "tests", "tests_file": path}


def written_rubric(
    from_file: Sequence[Any], file_name: str | None, flags: dict[str, Sequence[str]]
) -> WrittenRubric:
    """Collect a `--rubric` file's criteria, then each flag's, naming where each came from."""
    written = WrittenRubric(
        list(from_file), [f"{file_name}: item {n + 1}" for n in range(len(from_file))]
    )
    readers = {"--criterion": _criterion_flag, "--check": check_flag, "--tests": _tests_flag}
    for flag, reader in readers.items():
        for position, text in enumerate(flags.get(flag, ()), start=1):
            written.criteria.append(reader(text))
            written.sources.append(f"{flag} #{position}")
    return written
