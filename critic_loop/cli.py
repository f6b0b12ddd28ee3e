"""The `critic-loop` command: run a refinement loop and watch it round by round.

    critic-loop demo                       run the bundled example task
    critic-loop run --input task.json      run a task and rubric from a JSON file
    critic-loop run --task "..." --criterion id="text" --criterion ...

Runs and rules are kept in one SQLite file, or in PostgreSQL when
`CRITIC_LOOP_DATABASE_URL` (or `--db`) is a postgresql:// URL (see
`critic_loop.persistence`); giving the `--thread-id` of a run that was interrupted resumes
it. The exit status is 0 when the
critic passed the result, 1 when the run ended without a pass, 2 on bad input or setup,
3 when a model or the network failed mid-run (resume it with the same --thread-id).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import openai
from pydantic import ValidationError

from critic_loop.model_choice import DiscoveryFailed, choose_models_from_environment
from critic_loop.persistence import DATABASE_URL_VARIABLE, default_database, open_persistence
from critic_loop.results import LoopDidNotPass
from critic_loop.run import ThreadFinished, drive_loop, start_input, thread_config
from graphs.app import build_graph
from nodes.check_input import preflight
from nodes.models import MissingApiKey, ModelSetupError
from nodes.route import first_line
from state.context import Context
from state.loop import LoopInput, LoopState
from state.rubric import dump_rubric

logger = logging.getLogger("critic_loop.cli")

EXAMPLE = Path(__file__).parent / "examples" / "product_description.json"

CONTEXT_OPTIONS = {
    "worker_model": "model that drafts, as provider:model (e.g. openai:gpt-4.1-mini)",
    "judge_granularity": "rubric (one judge call) or criterion (one call per criterion)",
    "worker_max_tokens": "cap on a draft's length in tokens",
    "pass_threshold": "weighted score a draft needs to pass, 0 to 1 (every must criterion too)",
    "critic_model": "model that grades, as provider:model (e.g. google_genai:gemini-2.5-pro)",
    "base_url": "OpenAI-compatible server for openai: models (llama.cpp, Ollama, vLLM)",
    "max_iterations": "most rounds to run (1-100)",
    "stall_rounds": "rounds without progress before stopping as stalled",
    "structured_output_method": "json_schema, function_calling or json_mode",
    "on_exhausted": "best (return the best draft) or raise",
}

OPTION_TYPES: dict[str, type] = {
    "max_iterations": int,
    "stall_rounds": int,
    "worker_max_tokens": int,
    "pass_threshold": float,
}

WAYS_FORWARD = """
critic-loop needs a model, and found no API key and no local server. Either:
  1. use a hosted model: export OPENAI_API_KEY=...  (or GOOGLE_API_KEY=... for Gemini), or
  2. point it at a local OpenAI-compatible server (llama.cpp, Ollama, vLLM, LM Studio):
     export OPENAI_BASE_URL=http://127.0.0.1:8080/v1   (or pass --base-url)
     The model the server serves is used for every role; --model openai:<name> picks one.
Then run the same command again. See README.md, "Choosing models"."""


class UsageError(Exception):
    """The command line was given something it cannot run."""


class RunInterrupted(Exception):
    """A model or the network failed mid-run; every finished step is saved."""

    def __init__(self, thread_id: str, error: Exception) -> None:
        """Keep the thread to resume and the cause."""
        self.thread_id = thread_id
        super().__init__(
            f"the run stopped: {type(error).__name__}: {error}\n"
            f"Every finished step is saved; fix the cause and resume with --thread-id {thread_id}"
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="critic-loop",
        description="A worker drafts, an independent critic grades, the worker revises.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a task against a rubric")
    source = run.add_argument_group("what to run")
    source.add_argument("--input", type=Path, help='JSON file: {"task": ..., "rubric": [...]}')
    source.add_argument("--task", help="the task, as text")
    source.add_argument("--task-file", type=Path, help="file holding the task")
    source.add_argument("--rubric", type=Path, help='JSON file: [{"id": ..., "text": ...}]')
    source.add_argument(
        "--criterion", action="append", default=[], metavar="ID=TEXT", help="a criterion"
    )
    demo = commands.add_parser("demo", help="run the bundled example task")
    for command in (run, demo):
        settings = command.add_argument_group("run settings (default: CRITIC_LOOP_* env)")
        for name, help_text in CONTEXT_OPTIONS.items():
            settings.add_argument(
                "--" + name.replace("_", "-"), type=OPTION_TYPES.get(name, str), help=help_text
            )
        command.add_argument(
            "--model", help="one provider:model for every role (worker, critic, distiller)"
        )
        command.add_argument("--thread-id", help="thread to run in (resumes an unfinished one)")
        command.add_argument(
            "--db",
            help=(
                "SQLite file or postgresql:// URL for runs and rules "
                f"(default: ${DATABASE_URL_VARIABLE}, else {default_database()})"
            ),
        )
        command.add_argument("--json", action="store_true", help="print the final state as JSON")
    return parser


def _criterion(text: str) -> dict[str, str]:
    identifier, separator, body = text.partition("=")
    if not separator:
        raise UsageError(f"--criterion {text!r} should look like ID=TEXT")
    return {"id": identifier.strip(), "text": body.strip()}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise UsageError(f"cannot read {path}: {error}") from error


def _loop_input(args: argparse.Namespace) -> LoopInput:
    if args.command == "demo":
        data = _read_json(EXAMPLE)
    elif args.input:
        data = _read_json(args.input)
    else:
        task = args.task_file.read_text() if args.task_file else args.task
        rubric = _read_json(args.rubric) if args.rubric else []
        data = {"task": task or "", "rubric": [*rubric, *map(_criterion, args.criterion)]}
    return LoopInput.model_validate(data)


def _context(args: argparse.Namespace) -> Context:
    chosen = {name: getattr(args, name) for name in CONTEXT_OPTIONS}
    chosen = {name: value for name, value in chosen.items() if value is not None}
    if args.model:
        chosen = {"worker_model": args.model, "critic_model": args.model, **chosen}
    Context(**chosen)  # the user's own settings are checked before asking any server
    return Context(**{**choose_models_from_environment(chosen), **chosen})


def _label(criterion: dict[str, Any]) -> str:
    """Name a failing criterion with its severity, weight and terminality."""
    weight = f" x{criterion['weight']:g}" if criterion["weight"] != 1 else ""
    terminal = ", cannot be met" if criterion["terminal"] else ""
    return f"{criterion['id']} ({criterion['severity']}{weight}{terminal})"


def _show_event(event: dict[str, Any]) -> None:
    if event.get("event") == "recall":
        rules = event["rules"]
        print(f"memory: {len(rules)} rule(s) recalled from scope {event['scope']!r}", flush=True)
        for rule in rules:
            print(f"  - {rule}", flush=True)
    elif event.get("event") == "draft":
        print(f"round {event['round']}: draft of {event['characters']} characters", flush=True)
    elif event.get("event") == "verdict":
        if event["error"]:
            print(f"round {event['round']}: the critic failed: {event['error']}", flush=True)
            return
        criteria = event["criteria"]
        passed = sum(item["passed"] for item in criteria)
        failing = [_label(i) for i in criteria if not i["passed"] and not i["skipped"]]
        waiting = [i["id"] for i in criteria if i["skipped"]]
        line = f"round {event['round']}: {passed}/{len(criteria)} criteria passed"
        line += f", must {event['musts_passed']}/{event['musts_total']}"
        line += f", weighted score {event['score']:.2f}"
        line += f"; failing: {', '.join(failing)}" if failing else ""
        line += f"; not graded until the checks pass: {', '.join(waiting)}" if waiting else ""
        print(line, flush=True)


def _show_result(state: LoopState, thread_id: str, as_json: bool) -> None:
    if as_json:
        print(state.model_dump_json(indent=2, exclude={"messages"}))
        return
    print(f"\noutcome: {state.outcome} after {state.rounds} round(s) (thread {thread_id})")
    if state.outcome_reason:
        print(f"  why: {state.outcome_reason}")
    for item in state.open_items:
        print(f"  still open [{item.criterion_id}] {item.text}")
        print(f"    {'hint: ' + item.hint if item.hint else first_line(item.evidence)}")
    report = state.memory_report
    if report is not None and report.skipped is None:
        print(
            f"memory: {len(report.added)} rule(s) added, {len(report.updated)} updated, "
            f"{len(report.reinforced)} reinforced, {len(report.rejected)} refused "
            f"(scope {report.scope!r})"
        )
    for error in state.memory_errors:
        print(f"memory error: {error}")
    print(f"\n--- final draft (round {state.final_round}) ---\n{state.final}")


def _run(args: argparse.Namespace) -> int:
    context = _context(args)
    checked = _loop_input(args)
    preflight(context, checked.rubric)
    loop_input = {"task": checked.task, "rubric": dump_rubric(checked.rubric)}
    config = thread_config(args.thread_id)
    thread_id = config["configurable"]["thread_id"]
    with open_persistence(args.db) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer, store=persistence.store)
        start = start_input(graph, config, loop_input)
        if start is None and not args.json:
            kept = graph.get_state(config).values
            if (kept["task"], kept["rubric"]) != (loop_input["task"], loop_input["rubric"]):
                print("note: resuming with the thread's own task and rubric, not the ones given")
        if not args.json:
            print(
                f"critic-loop: {'resuming' if start is None else 'new'} thread {thread_id}; "
                f"worker {context.worker_model}, critic {context.critic_model}, "
                f"up to {context.max_iterations} rounds; data in {persistence.location}",
                flush=True,
            )
        try:
            state = drive_loop(graph, start, config, context, None if args.json else _show_event)
        except LoopDidNotPass as failure:
            state = failure.state
        except Exception as error:
            if not isinstance(error, openai.APIError | httpx.HTTPError | OSError):
                logger.exception("the run failed unexpectedly")
            raise RunInterrupted(thread_id, error) from error
    _show_result(state, thread_id, args.json)
    return 0 if state.outcome == "passed" else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except MissingApiKey as error:
        print(f"critic-loop: {error}\n{WAYS_FORWARD}", file=sys.stderr)
    except (ModelSetupError, DiscoveryFailed, LookupError, FileNotFoundError) as error:
        print(f"critic-loop: {error}", file=sys.stderr)
    except ValidationError as error:
        print(f"critic-loop: invalid input or settings:\n{error}", file=sys.stderr)
    except (UsageError, ThreadFinished) as error:
        print(f"critic-loop: {error}", file=sys.stderr)
    except RunInterrupted as error:
        print(f"critic-loop: {error}", file=sys.stderr)
        return 3
    return 2


if __name__ == "__main__":
    sys.exit(main())
