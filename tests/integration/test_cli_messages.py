"""Everyday mistakes at the command line: one line that names what the user wrote, exit 2.

Each case is a mistake a new user makes, the words the message must contain, and the exit
status. None of them may reach a model, print a pydantic dump, or print a traceback
(tracebacks are for `--debug`).
"""

import io
import json

import pytest

from critic_loop import local_model
from critic_loop.cli import run_commands
from critic_loop.cli.ticker import Ticker, next_step
from tests.support.cli import model_args
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer

pytestmark = pytest.mark.integration

NOT_FOR_PEOPLE = ("Traceback", "errors.pydantic.dev", "_kind_of", "validation error for")

MISTAKES = [
    (
        "empty rubric",
        ["run", "--task", "Write a haiku."],
        "the rubric is empty: give at least one --criterion ID=TEXT, --check or --tests",
    ),
    ("empty task", ["run", "--task", " ", "--criterion", "a=Short."], "task: the task is empty"),
    (
        "a kind typo in a rubric file",
        ["run", "--task", "x", "--rubric", "rubric.json"],
        "rubric.json: item 2 ('tests_pass'): kind 'test' is not a kind of criterion; "
        "did you mean 'tests'? use one of: llm, word_count",
    ),
    (
        "a kind typo on --check",
        ["run", "--task", "x", "--check", "x=wordcount"],
        "--check #1 ('x'): kind 'wordcount' is not a kind of criterion; did you mean "
        "'word_count'? use one of: llm, word_count",
    ),
    (
        "an --input file that does not exist",
        ["run", "--input", "missing.json"],
        "--input 'missing.json': no such file; give the path of a JSON file that holds the "
        "task and the rubric",
    ),
    (
        "a setting typo on --check",
        ["run", "--task", "x", "--check", "length=word_count:mx=120"],
        "--check #1 ('length'): 'mx' is not a setting of a word_count criterion; "
        "it takes: min, max",
    ),
    (
        "an id with a space on --criterion",
        ["run", "--task", "x", "--criterion", "a=Short.", "--criterion", "my id=Plain."],
        "--criterion #2 ('my id'): the id may use letters, digits and _ . : -",
    ),
    (
        "a --criterion without text",
        ["run", "--task", "x", "--criterion", "tone"],
        "--criterion 'tone' should look like ID=TEXT",
    ),
    (
        "the same id twice",
        ["run", "--task", "x", "--criterion", "a=One.", "--check", "a=word_count:max=5"],
        "rubric: duplicate criterion id 'a'",
    ),
    (
        "--input and --task together",
        ["run", "--input", "rubric.json", "--task", "x"],
        "--input holds the task and rubric: drop --task",
    ),
    (
        "--on-exhausted on the command line",
        ["run", "--task", "x", "--criterion", "a=Short.", "--on-exhausted", "raise"],
        "--on-exhausted is for the Python helpers",
    ),
    (
        "--tests naming no file",
        ["run", "--task", "x", "--tests", "missing_test.py"],
        "--tests 'missing_test.py': no file 'missing_test.py'",
    ),
    ("--quiet with --verbose", ["-q", "-v", "run", "--task", "x"], "--quiet cannot go with"),
    (
        "an unknown model provider",
        ["run", "--task", "x", "--criterion", "a=Short.", "--model", "nosuch:model"],
        "names an unknown provider 'nosuch'",
    ),
    (
        "no API key and no local server (and no embedded model)",
        ["run", "--task", "x", "--criterion", "a=Short."],
        "no model to run: set OPENAI_API_KEY (or GOOGLE_API_KEY), or OPENAI_BASE_URL",
    ),
    (
        "a model without its provider",
        ["run", "--task", "x", "--criterion", "a=Short.", "--worker-model", "gpt-4.1-mini"],
        "--worker-model: 'gpt-4.1-mini' names no provider: did you mean openai:gpt-4.1-mini?",
    ),
    (
        "--model without its provider",
        ["demo", "--model", "gemini-2.5-flash"],
        "--model: 'gemini-2.5-flash' names no provider: did you mean "
        "google_genai:gemini-2.5-flash?",
    ),
    (
        "a --task-file that does not exist",
        ["run", "--task-file", "nope.md", "--criterion", "a=Short."],
        "--task-file 'nope.md': no such file; give the path of a text file that holds the "
        "task, or the task itself with --task",
    ),
    (
        "a global flag after the command",
        ["run", "--task", "x", "--criterion", "a=Short.", "-q"],
        "-q is a flag of critic-loop itself and goes before the command: "
        "critic-loop -q run --task x --criterion a=Short.",
    ),
    (
        "--debug after the command",
        ["demo", "--debug"],
        "--debug is a flag of critic-loop itself and goes before the command: "
        "critic-loop --debug demo",
    ),
    (
        "a bad iteration cap",
        ["run", "--task", "x", "--criterion", "a=Short.", "--max-iterations", "0"],
        "Invalid value for '--max-iterations': 0 is not in the range 1<=x<=100",
    ),
]

ONE_LINE = (
    "no model to run",
    "--worker-model",
    "--model",
    "--task-file",
    "-q",
    "--debug",
    "--input",
)
"""Messages that are exactly one line on stderr (others may list a problem per line)."""


@pytest.mark.parametrize(
    ("arguments", "message"), [case[1:] for case in MISTAKES], ids=[case[0] for case in MISTAKES]
)
def test_a_mistake_gets_one_clear_message_and_exit_2(
    tmp_path, run_cli, monkeypatch, arguments, message
) -> None:
    monkeypatch.setattr(local_model, "is_installed", lambda: False)  # no embedded model
    rubric = [{"id": "short", "text": "Short."}, {"id": "tests_pass", "kind": "test"}]
    (tmp_path / "rubric.json").write_text(json.dumps(rubric))
    done = run_cli(*arguments)
    assert done.returncode == 2, done
    assert message in done.stderr
    assert not any(marker in done.stderr for marker in NOT_FOR_PEOPLE), done.stderr
    assert done.stdout == ""
    if any(message.startswith(start) for start in ONE_LINE):
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_model_without_its_provider_in_python_names_the_fix() -> None:
    from pydantic import ValidationError

    from critic_loop import Context

    with pytest.raises(ValidationError, match="did you mean openai:gpt-4.1-mini"):
        Context(worker_model="gpt-4.1-mini")
    with pytest.raises(ValidationError, match="did you mean anthropic:claude-sonnet-4"):
        Context(critic_model="claude-sonnet-4")
    with pytest.raises(ValidationError, match="did you mean openai:my-local-model"):
        Context(critic_model="my-local-model")


def test_check_and_tests_flags_write_deterministic_criteria() -> None:
    from critic_loop.cli.rubric_flags import check_flag, written_rubric

    assert check_flag("length=word_count:max=120") == {
        "id": "length",
        "kind": "word_count",
        "max": 120,
    }
    assert check_flag("facts=contains:phrases=24 hours|dishwasher") == {
        "id": "facts",
        "kind": "contains",
        "phrases": ["24 hours", "dishwasher"],
    }
    assert check_flag("no_todo=regex:pattern=TODO,must_match=false")["must_match"] is False
    written = written_rubric(
        [{"id": "a", "text": "x"}], "r.json", {"--check": ["b=json"], "--criterion": ["c=y"]}
    )
    assert [written.label(i) for i in range(3)] == [
        "r.json: item 1",
        "--criterion #1",
        "--check #1",
    ]


def test_a_check_only_rubric_runs_without_a_critic_and_quiet_prints_only_the_draft(
    run_cli,
) -> None:
    script = RoleScript(worker=["one two three four five six", "one two three"])
    with ScriptedOpenAIServer(script) as server:
        done = run_cli(
            "--quiet",
            "run",
            "--task",
            "Say three words.",
            "--check",
            "length=word_count:max=4",
            "--check",
            "no_todo=regex:pattern=TODO,must_match=false",
            "--no-memory",
            "--candidates",
            "1",  # one draft, then its revision (auto would draft three side by side)
            *model_args(server),
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "one two three\n"
    assert done.stderr == ""


def test_debug_adds_the_traceback_and_a_bug_exits_4(run_cli, monkeypatch) -> None:
    def broken(*arguments):
        raise RuntimeError("something inside broke")

    monkeypatch.setattr(run_commands, "_context", broken)
    arguments = ["run", "--task", "x", "--criterion", "a=Short."]
    plain = run_cli(*arguments)
    assert plain.returncode == 4
    assert "critic-loop itself failed (RuntimeError: something inside broke)" in plain.stderr
    assert "--debug" in plain.stderr and "Traceback" not in plain.stderr
    debug = run_cli("--debug", *arguments)
    assert debug.returncode == 4
    assert "Traceback (most recent call last)" in debug.stderr


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_ticker_draws_on_a_terminal_only_and_erases_itself() -> None:
    seconds = iter(range(0, 1000, 7))
    terminal = FakeTerminal()
    with Ticker(terminal, interval=3600, clock=lambda: next(seconds)) as ticker:
        ticker.show(next_step({"event": "draft", "round": 2}))
        with ticker.paused():
            terminal.write("[a progress line]\n")
        ticker.show(next_step({"event": "finished", "learning": True}))
    drawn = terminal.getvalue()
    assert "| the critic is grading round 2 (7 s)" in drawn
    assert "distilling rules from this run" in drawn
    erased = drawn.split("[a progress line]")[0]
    assert erased.endswith("\r" + " " * len("| the critic is grading round 2 (7 s)") + "\r")
    assert drawn.endswith("\r")  # the last status line was erased on exit

    piped = io.StringIO()
    with Ticker(piped, interval=0.01) as ticker:
        ticker.show("the worker is drafting round 1")
    assert piped.getvalue() == ""
    assert next_step({"event": "finished", "learning": False}) is None


DEEP_RUBRIC = "[" * 10_000 + "]" * 10_000
DEEP_SCHEMA = '[{"id": "s", "kind": "json_schema", "schema": ' + '{"not": ' * 1_000 + "{}"
DEEP_SCHEMA += "}" * 1_000 + "}]"


@pytest.mark.parametrize(
    ("arguments", "files"),
    [
        (["run", "--task", "x", "--rubric", "deep.json"], {"deep.json": DEEP_RUBRIC}),
        (["run", "--task", "x", "--rubric", "schema.json"], {"schema.json": DEEP_SCHEMA}),
        (
            ["run", "--input", "input.json"],
            {"input.json": '{"task": "x", "rubric": ' + DEEP_SCHEMA + "}"},
        ),
        (
            [
                "run",
                "--task",
                "x",
                "--check",
                "s=json_schema:schema=" + '{"not": ' * 1_000 + "{}" + "}" * 1_000,
            ],
            {},
        ),
    ],
    ids=["rubric-10000", "json_schema-1000", "input-json_schema-1000", "check-flag-1000"],
)
def test_deeply_nested_input_gets_one_line_and_exit_2(tmp_path, run_cli, arguments, files) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    done = run_cli(*arguments)
    assert done.returncode == 2, done
    assert done.stderr.count("\n") == 1, done.stderr
    assert "nested more than 64 levels deep (CRITIC_LOOP_MAX_NESTING_DEPTH)" in done.stderr
    assert not any(marker in done.stderr for marker in NOT_FOR_PEOPLE), done.stderr
