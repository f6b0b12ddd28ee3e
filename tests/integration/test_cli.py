"""The `critic-loop` command against the scripted HTTP model, driven in-process by `main(argv)`.

`tests/integration/test_cli_process.py` runs the installed command as a real process.
"""

import json

import pytest

from critic_loop.cli.run_commands import EXAMPLE
from tests.support.cli import model_args
from tests.support.dev_server import free_port
from tests.support.openai_server import (
    FULL_DRAFT,
    DiligentModel,
    Failure,
    RoleScript,
    ScriptedOpenAIServer,
)
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import QUOTE, graded

pytestmark = pytest.mark.integration


def test_run_shows_each_round_and_the_final_draft(tmp_path, run_cli) -> None:
    (tmp_path / "task.json").write_text(
        json.dumps({"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]})
    )
    script = RoleScript(
        worker=["first try", "second try"],
        critic=[graded(RUBRIC, {"tone": "Use plainer words."}), graded(RUBRIC)],
    )
    with ScriptedOpenAIServer(script) as server:
        done = run_cli("run", "--input", "task.json", *model_args(server))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert (
        "round 1: 2/3 criteria passed, must 2/3, weighted score 0.67; failing: tone (must)" in lines
    )
    assert "round 2: 3/3 criteria passed, must 3/3, weighted score 1.00" in lines
    assert any(line.startswith("outcome: passed after 2 round(s)") for line in lines)
    assert lines[-1] == "second try"
    assert (tmp_path / ".critic_loop" / "critic_loop.sqlite").exists()


def test_run_that_does_not_pass_exits_1_with_open_items(tmp_path, run_cli) -> None:
    script = RoleScript(
        worker=["only try"], critic=[graded(RUBRIC, {"tone": "Use plainer words."})]
    )
    with ScriptedOpenAIServer(script) as server:
        done = run_cli(
            "run",
            "--task",
            TASK,
            "--criterion",
            "tone=" + RUBRIC[2].text,
            "--criterion",
            "length=" + RUBRIC[0].text,
            "--criterion",
            "example=" + RUBRIC[1].text,
            "--max-iterations",
            "1",
            "--json",
            *model_args(server),
        )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] == "exhausted"
    assert result["open_items"][0]["criterion_id"] == "tone"
    assert result["final"] == "only try"


def test_the_demo_says_what_it_shows_before_it_runs(tmp_path, run_cli) -> None:
    with ScriptedOpenAIServer(DiligentModel()) as server:
        done = run_cli("demo", "--no-memory", env={"OPENAI_BASE_URL": server.base_url})
    assert done.returncode == 0, done.stderr
    intro, _, run = done.stdout.partition("critic-loop: new thread")
    assert intro.startswith("About this demo:")
    assert "a rubric the worker never sees" in " ".join(intro.split())
    rubric = json.loads(EXAMPLE.read_text())["rubric"]
    for criterion in rubric:
        how = "judged" if criterion.get("kind", "llm") == "llm" else "check "
        assert f"  {how}  {criterion['id']}: " in intro
    assert {c.get("kind", "llm") for c in rubric} >= {"llm", "word_count"}
    assert "Watch for:" in intro
    # the bundled first draft misses the closing line; the hint gets it into the revision
    assert "round 1: 1/3 criteria passed" in run and "failing: order_now (must)" in run
    assert "outcome: passed after 2 round(s)" in run


@pytest.mark.parametrize("flag", ["--json", "--quiet"])
def test_the_demo_intro_stays_out_of_json_and_quiet_output(tmp_path, run_cli, flag) -> None:
    arguments = ["demo", "--json"] if flag == "--json" else ["--quiet", "demo"]
    with ScriptedOpenAIServer(DiligentModel()) as server:
        done = run_cli(*arguments, "--no-memory", env={"OPENAI_BASE_URL": server.base_url})
    assert done.returncode == 0, done.stderr
    if flag == "--json":
        assert json.loads(done.stdout)["outcome"] == "passed"
    else:
        assert done.stdout == FULL_DRAFT + "\n"


def test_bad_input_exits_2_before_any_model_call(tmp_path, run_cli) -> None:
    script = RoleScript()
    with ScriptedOpenAIServer(script) as server:
        done = run_cli("run", "--task", "   ", "--criterion", "a=x y z", *model_args(server))
        assert server.requests == []
    assert done.returncode == 2
    assert "the task is empty" in done.stderr


def test_bad_iteration_cap_exits_2(tmp_path, run_cli) -> None:
    done = run_cli("demo", "--max-iterations", "0", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 2
    assert "Invalid value for '--max-iterations': 0 is not in the range 1<=x<=100" in done.stderr


def test_with_only_a_local_server_set_the_served_model_is_used(tmp_path, run_cli) -> None:
    met = {"quote": QUOTE, "verdict": "met", "hint": ""}  # one criterion per call: no id
    script = RoleScript(worker=["only try"], critic=[met])
    with ScriptedOpenAIServer(script) as server:
        done = run_cli(
            "run",
            "--task",
            TASK,
            "--criterion",
            "c=x y z",
            env={"OPENAI_BASE_URL": server.base_url},
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "worker openai:scripted, critic openai:scripted" in done.stdout
    # worker and judge; a run that passed at once teaches nothing: no distiller call
    assert [r["model"] for r in server.requests] == ["scripted"] * 2
    assert server.plain_requests()[0]["max_tokens"] == 1024


@pytest.mark.parametrize(
    ("critic_answer", "cause"),
    [
        (Failure(401, "invalid api key"), "invalid api key"),  # refused outright
        (None, "script exhausted"),  # a server error that survives the client's retries
    ],
    ids=["auth-error", "server-error"],
)
def test_a_model_failure_mid_run_exits_3_with_the_resume_hint(
    tmp_path, run_cli, critic_answer, cause
) -> None:
    script = RoleScript(worker=["draft"], critic=[critic_answer] if critic_answer else [])
    with ScriptedOpenAIServer(script) as server:
        done = run_cli(
            "run",
            "--task",
            TASK,
            "--criterion",
            "c=x y z",
            "--thread-id",
            "t-9",
            *model_args(server),
        )
    assert done.returncode == 3
    assert "Traceback" not in done.stderr
    assert cause in done.stderr
    assert "resume with: critic-loop run --thread-id t-9\n" in done.stderr


def test_an_unreachable_model_server_at_the_start_is_named_and_leaves_no_thread(
    tmp_path, run_cli
) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    done = run_cli(
        "run",
        "--task",
        TASK,
        "--criterion",
        "c=x y z",
        "--thread-id",
        "t-gone",
        "--worker-model",
        "openai:stub-worker",
        "--critic-model",
        "openai:stub-critic",
        "--base-url",
        closed,
        "--max-retries",
        "0",
    )
    assert done.returncode == 3
    assert "Traceback" not in done.stderr
    assert (
        f"the run stopped: the worker model 'openai:stub-worker' at {closed}/chat/completions "
        "cannot be reached ("
    ) in done.stderr
    assert "ConnectionError: Connection error.)" in done.stderr
    assert "Nothing was kept (no draft was made). Start the model server" in done.stderr
    listed = run_cli("runs", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []


def test_a_server_that_cannot_name_its_model_is_a_setup_error(tmp_path, run_cli) -> None:
    done = run_cli("demo", env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert done.returncode == 2
    assert (  # a server that is down gets no retries, and the advice is to start one
        "nothing answers at http://127.0.0.1:9/v1 (connection refused): start the model server "
        "there, or point --base-url (or OPENAI_BASE_URL) at one that runs"
    ) in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "no model to run" not in done.stderr


def test_an_unknown_provider_says_so_without_the_no_key_advice(tmp_path, run_cli) -> None:
    done = run_cli("demo", "--model", "nosuch:model")
    assert done.returncode == 2
    assert "unknown provider 'nosuch'" in done.stderr
    assert "no model to run" not in done.stderr


def test_pass_threshold_flag_and_resume_with_other_input(tmp_path, run_cli) -> None:
    criteria = [{"id": "a", "text": "x y z"}, {"id": "b", "text": "p q r", "severity": "should"}]
    script = RoleScript(worker=["draft"], critic=[graded(criteria, {"b": "more"})])
    (tmp_path / "task.json").write_text(json.dumps({"task": TASK, "rubric": criteria}))
    with ScriptedOpenAIServer(script) as server:
        done = run_cli(
            "run",
            "--input",
            "task.json",
            "--pass-threshold",
            "0.5",
            "--thread-id",
            "t1",
            *model_args(server),
        )
    assert done.returncode == 0, done.stderr
    assert "must 1/1, weighted score 0.50; failing: b (should)" in done.stdout
    with ScriptedOpenAIServer(RoleScript()) as server:
        again = run_cli("run", "--input", "task.json", "--thread-id", "t1", *model_args(server))
    assert again.returncode == 2  # finished threads are refused, not rerun
    assert "already finished" in again.stderr
    assert "to read it: critic-loop show t1" in again.stderr
    assert "critic-loop fork t1 --round N (N from 1 to 1)" in again.stderr
    shown = run_cli("show", "t1", "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["values"]["outcome"] == "passed"


def test_input_file_and_task_flags_conflict(tmp_path, run_cli) -> None:
    (tmp_path / "task.json").write_text(
        json.dumps({"task": TASK, "rubric": [{"id": "a", "text": "x y z"}]})
    )
    done = run_cli("run", "--input", "task.json", "--task", "Something else.")
    assert done.returncode == 2
    assert "--input holds the task and rubric: drop --task" in done.stderr


def test_every_setting_is_a_flag_and_reaches_the_run(tmp_path, run_cli) -> None:
    criteria = [{"id": "c", "text": "x y z"}]
    script = RoleScript(worker=["only try"], critic=[graded(criteria)])
    with ScriptedOpenAIServer(script) as server:
        done = run_cli(
            "run",
            "--task",
            TASK,
            "--criterion",
            "c=x y z",
            "--no-memory",
            "--memory-scope",
            "elsewhere",
            "--critic-attempts",
            "1",
            "--json",
            *model_args(server),
        )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["memory_report"]["skipped"] == "distillation is turned off for this run"
    assert result["memory_report"]["scope"] == "elsewhere"
    assert len(server.requests) == 2  # worker and judge; no distiller


def test_review_at_the_terminal_reject_then_accept(tmp_path, run_cli, monkeypatch) -> None:
    import io

    criteria = [{"id": "c", "text": "x y z"}]
    script = RoleScript(
        worker=["draft one", "draft two"], critic=[graded(criteria), graded(criteria)]
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("reject\nSay it in one sentence.\naccept\n"))
    with ScriptedOpenAIServer(script) as server:
        done = run_cli(
            "run",
            "--task",
            TASK,
            "--criterion",
            "c=x y z",
            "--review",
            "every_round",
            "--no-memory",
            *model_args(server),
        )
    assert done.returncode == 0, done.stderr
    assert "review: round 1 was graded; the best draft is round 1" in done.stderr
    assert "Say it in one sentence." in json.dumps(server.plain_requests()[1]["messages"])
    assert "outcome: accepted after 2 round(s)" in done.stdout
    assert done.stdout.rstrip().endswith("draft two")
    thread = next(
        line.split("thread ")[1].split(";")[0]
        for line in done.stdout.splitlines()
        if line.startswith("critic-loop: new thread")
    )
    shown = run_cli("show", thread)
    assert shown.returncode == 0, shown.stderr
    assert "review (round 1 was graded): reject the draft of round 1" in shown.stdout
    assert "  the person said: Say it in one sentence." in shown.stdout
    assert "review (round 2 was graded): accept the draft of round 2" in shown.stdout
