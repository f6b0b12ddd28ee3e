"""Find the ```python blocks of a Markdown file, each with the heading it sits under.

A block that cannot run offline carries a marker on the line directly above its fence,
`<!-- snippet: not-run (the reason) -->`; the reason is required.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\S*)")
"""An opening or closing code fence: its backticks (or tildes) and its info string."""

HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")

MARKER = re.compile(r"^<!--\s*snippet:\s*(.*?)\s*-->\s*$")
"""A snippet marker; its body must be `not-run (reason)`."""

NOT_RUN = re.compile(r"^not-run\s*\((.*\S.*)\)$")


@dataclass(frozen=True)
class Snippet:
    """One ```python block: where it is and what it says."""

    heading: str
    number: int
    """Its position among the Python blocks under the same heading, from 1."""
    line: int
    """The line of its opening fence, from 1."""
    code: str
    marker: str | None = None
    """The body of a `<!-- snippet: ... -->` marker directly above the fence."""

    @property
    def name(self) -> str:
        """A test id: the heading as a slug and the number."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.heading.lower()).strip("-") or "top"
        return f"{slug}-{self.number}"

    @property
    def not_run_reason(self) -> str | None:
        """Why the block is not run, if its marker says so (None for an unmarked block)."""
        if self.marker is None:
            return None
        found = NOT_RUN.match(self.marker)
        if found is None:
            raise ValueError(
                f"line {self.line - 1}: a snippet marker must read "
                f"'<!-- snippet: not-run (reason) -->', not {self.marker!r}"
            )
        return found.group(1).strip()


def python_snippets(path: Path) -> list[Snippet]:
    """Return every ```python block of the Markdown file at `path`, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    snippets: list[Snippet] = []
    heading, fence, start, marker = "", "", 0, None
    body: list[str] = []
    counts: dict[str, int] = {}
    for index, line in enumerate(lines):
        if fence:
            if line.strip() == fence:
                if start:
                    counts[heading] = counts.get(heading, 0) + 1
                    code = "\n".join(body) + "\n"
                    snippets.append(Snippet(heading, counts[heading], start, code, marker))
                fence, body, start = "", [], 0
            elif start:
                body.append(line)
            continue
        opening = FENCE.match(line)
        if opening:
            fence = opening.group(1)
            if opening.group(2).lower() in ("python", "py"):
                start = index + 1
                above = MARKER.match(lines[index - 1]) if index else None
                marker = above.group(1) if above else None
            continue
        titled = HEADING.match(line)
        if titled:
            heading = titled.group(1)
    return snippets
