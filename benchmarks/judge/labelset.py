"""The labelled set as `critic-loop calibrate` reads it: `labels.jsonl`, built from the sets.

Each line is one artifact of any set (`families.LABELLED`: the fit set, the held-out set,
the run drafts, the degenerate drafts and the everyday pairs), its rubric (its `llm`
criteria), the labels and its family. `python -m benchmarks.judge.labelset --write`
rebuilds it after a set changes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.judge.cases import CASES, QUICK_IDS, Case
from benchmarks.judge.families import LABELLED
from benchmarks.judge.held_out import HELD_OUT

LABELS = Path(__file__).resolve().parent / "labels.jsonl"
"""The built file, beside this module."""


def as_line(case: Case) -> dict[str, Any]:
    """Return one case as a line of a calibrate labels file."""
    return {
        "id": case.id,
        "artifact": case.artifact,
        "rubric": [{"id": pair.id, "text": pair.text} for pair in case.pairs],
        "labels": {pair.id: pair.label for pair in case.pairs},
        "family": case.family,
    }


def render(cases: Iterable[Case] = LABELLED) -> str:
    """Return the labels file's text for `cases`."""
    return "".join(json.dumps(as_line(case), ensure_ascii=False) + "\n" for case in cases)


def select(
    ids: Sequence[str] | None = None, *, quick: bool = False, held_out: bool = False
) -> list[Case]:
    """Return the cases to grade: the fit set, the `--quick` slice, the held-out set, or the named.

    Raises:
        ValueError: an id is in no set.
    """
    if held_out:
        return list(HELD_OUT)
    wanted = list(QUICK_IDS) if quick else ids
    if not wanted:
        return list(CASES)
    known = {case.id: case for case in LABELLED}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ValueError(f"unknown case id(s): {', '.join(unknown)}")
    return [known[name] for name in dict.fromkeys(wanted)]


def main(argv: list[str] | None = None) -> int:
    """Check that labels.jsonl is up to date (exit 1 if not), or rebuild it with --write."""
    parse = argparse.ArgumentParser(prog="python -m benchmarks.judge.labelset")
    parse.add_argument("--write", action="store_true", help="rebuild labels.jsonl")
    parse.add_argument("--held-out", action="store_true", help="print the held-out set's file")
    args = parse.parse_args(argv)
    if args.held_out:
        sys.stdout.write(render(HELD_OUT))
        return 0
    text = render()
    if args.write:
        LABELS.write_text(text, encoding="utf-8")
        return 0
    current = LABELS.read_text(encoding="utf-8") if LABELS.exists() else ""
    return 0 if current == text else 1


if __name__ == "__main__":
    raise SystemExit(main())
