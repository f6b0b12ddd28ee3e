"""The command that adds an optional extra, as it works for this installation."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

DISTRIBUTION = "critic-loop"


def _shown(path: Path) -> str:
    try:
        relative = path.relative_to(Path.cwd())
    except (ValueError, OSError):
        return str(path)
    return str(relative) if str(relative) != "." else "."


def source_tree() -> Path | None:
    """Return the clone critic-loop runs from, or None when it runs from an installed package."""
    root = Path(__file__).resolve().parents[1]
    project = root / "pyproject.toml"
    if project.is_file() and f'name = "{DISTRIBUTION}"' in project.read_text():
        return root
    return None


def _python() -> str:
    executable = Path(os.path.abspath(sys.executable))  # a venv's python is a link: keep it
    shown = _shown(executable)
    if shown == str(executable):
        return shlex.quote(str(executable))
    return shlex.quote(shown if os.sep in shown else f".{os.sep}{shown}")


def install_command(extra: str) -> str:
    """Return the one command that adds the optional extra `extra` to this installation."""
    clone = source_tree()
    if clone is None:
        return f"{_python()} -m pip install {shlex.quote(f'{DISTRIBUTION}[{extra}]')}"
    return f"{_python()} -m pip install -e {shlex.quote(f'{_shown(clone)}[{extra}]')}"


def missing_extra_message(what: str, extra: str) -> str:
    """Return one line: `what` needs the extra `extra`, and the command that adds it."""
    return f"{what}; add it with: {install_command(extra)}"
