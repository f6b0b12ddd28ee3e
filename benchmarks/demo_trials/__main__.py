"""Run `critic-loop demo` several times against one model and tabulate how each run went.

    python -m benchmarks.demo_trials --runs 8 [--parallel 2] [--memory] \
        [--out benchmarks/demo_trials/local-0.5b.json] [-- EXTRA DEMO FLAGS]

Each run is its own `critic-loop demo --json` process with a fresh thread and a fresh
SQLite file in a temporary directory, so no run sees another's rules; `--memory` keeps
long-term memory on (the default a user gets, recall then distill, still one fresh file
per run), else every run has `--no-memory`. The model is whatever the environment
chooses (for a local server: `OPENAI_BASE_URL`, as the demo itself does).

Per run it records the outcome, the rounds, the wall time, and each round's draft origin
and failing criteria; the JSON report holds them with the command and the date, and a
Markdown table of the runs is printed at the end. `--parallel` runs that many at once;
on a single-queue local server they share it, so each run's wall time includes waiting
for the others (the table says how many ran at once).
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _command() -> list[str]:
    installed = shutil.which("critic-loop", path=str(Path(sys.executable).parent))
    return [installed] if installed else [sys.executable, "-m", "critic_loop"]


def _rounds(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Each round's draft origin and what failed (or was not graded), from the final state."""
    origins = {draft["round"]: draft["origin"] for draft in state.get("drafts", [])}
    rounds = []
    for critique in sorted(state.get("critiques", []), key=lambda c: c["round"]):
        verdict = critique.get("verdict") or {"results": []}
        results = verdict["results"]
        rounds.append(
            {
                "round": critique["round"],
                "origin": origins.get(critique["round"], "?"),
                "repeat": critique.get("duplicate_of") is not None,
                "failing": [
                    r["criterion_id"] for r in results if not r["passed"] and not r.get("skipped")
                ],
                "not_graded": [r["criterion_id"] for r in results if r.get("skipped")],
                "error": critique.get("error"),
            }
        )
    return rounds


def one_run(number: int, memory: bool, extra: list[str], workdir: Path) -> dict[str, Any]:
    """Run the demo once in its own directory and database; return what happened."""
    here = workdir / f"run-{number}"
    here.mkdir(parents=True)
    command = [
        *_command(),
        "demo",
        "--json",
        "--thread-id",
        f"demo-trial-{number}",
        "--db",
        str(here / "runs.sqlite"),
        "--memory" if memory else "--no-memory",
        *extra,
    ]
    started = time.monotonic()
    done = subprocess.run(command, cwd=here, capture_output=True, text=True, check=False)
    seconds = round(time.monotonic() - started, 1)
    row: dict[str, Any] = {"run": number, "exit": done.returncode, "seconds": seconds}
    try:
        state = json.loads(done.stdout)
    except json.JSONDecodeError:
        row.update(outcome="error", rounds=None, stderr=done.stderr.strip()[-2000:])
        return row
    rounds = _rounds(state)
    row.update(
        outcome=state.get("outcome"),
        rounds=max((r["round"] for r in rounds), default=0),
        reason=state.get("outcome_reason"),
        per_round=rounds,
        final=state.get("final"),
        rules_recalled=len(state.get("recalled_rules") or []),
    )
    if done.stderr.strip():
        row["stderr"] = done.stderr.strip()[-2000:]
    return row


def _round_story(step: dict[str, Any]) -> str:
    how = (" fresh" if step["origin"] == "resample" else "") + (" repeat" if step["repeat"] else "")
    if step["error"]:
        return f"{step['round']}{how}: critic error"
    failing = step["failing"]
    return f"{step['round']}{how}: " + (f"failed {', '.join(failing)}" if failing else "pass")


def markdown(rows: list[dict[str, Any]]) -> str:
    """Return the runs as a Markdown table, with the pass rate under it."""
    lines = [
        "| run | outcome | rounds | wall time (s) | rounds in short |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        story = "; ".join(_round_story(step) for step in row.get("per_round", []))
        cells = [row["run"], row["outcome"], row["rounds"], f"{row['seconds']:.0f}", story]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    passed = sum(row["outcome"] == "passed" for row in rows)
    lines.append(f"\npassed: {passed}/{len(rows)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the trials, write the report, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="how many runs (default 5)")
    parser.add_argument("--parallel", type=int, default=1, help="runs at once (default 1)")
    parser.add_argument("--memory", action="store_true", help="keep long-term memory on")
    parser.add_argument("--first", type=int, default=1, help="number of the first run")
    parser.add_argument("--out", type=Path, help="JSON report to write")
    parser.add_argument("extra", nargs="*", help="more flags for `critic-loop demo` (after --)")
    arguments = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="demo-trials-"))
    numbers = range(arguments.first, arguments.first + arguments.runs)
    started = datetime.now(UTC).isoformat(timespec="seconds")

    def run(number: int) -> dict[str, Any]:
        row = one_run(number, arguments.memory, arguments.extra, workdir)
        print(
            f"run {number}: {row['outcome']} after {row['rounds']} round(s), {row['seconds']} s",
            file=sys.stderr,
        )
        return row

    with ThreadPoolExecutor(max_workers=arguments.parallel) as pool:
        rows = list(pool.map(run, numbers))
    report = {
        "started": started,
        "command": "critic-loop demo --json --thread-id demo-trial-N --db <fresh file> "
        + ("--memory" if arguments.memory else "--no-memory")
        + "".join(f" {flag}" for flag in arguments.extra),
        "base_url": os.environ.get("OPENAI_BASE_URL") or os.environ.get("CRITIC_LOOP_BASE_URL"),
        "parallel": arguments.parallel,
        "runs": rows,
        "passed": sum(row["outcome"] == "passed" for row in rows),
    }
    if arguments.out:
        arguments.out.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(rows))
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
