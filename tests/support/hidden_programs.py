"""A PATH on which some programs cannot be found, as on a host that lacks them."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def path_without(programs: set[str], directory: Path) -> str:
    """Return a PATH with this Python's bin and links to every program on PATH but `programs`."""
    directory.mkdir(parents=True, exist_ok=True)
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not Path(folder).is_dir():
            continue
        for program in Path(folder).iterdir():
            link = directory / program.name
            if program.name not in programs and not link.exists() and not link.is_symlink():
                link.symlink_to(program)
    return f"{Path(sys.executable).parent}{os.pathsep}{directory}"
