"""`critic-loop calibrate`: the critic alone against human labels, driven by `main(argv)`.

The critic is a scripted model (the `models` fixture's "scripted:" provider) for the
`llm` criterion, and a real word-count check for the deterministic one, so the numbers
below can be worked out by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.support.openai_server import RoleScript, ScriptedOpenAIServer, Text
from tests.support.run_history import cli_runner, one_line_error
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

CLEAR = {"id": "clear", "text": "The answer is easy to follow."}
SHORT = {"id": "short", "kind": "word_count", "max": 5}
RUBRIC = [CLEAR, SHORT]

# (artifact, human labels, does the scripted judge pass "clear"?); "short" is counted
ARTIFACTS = [
    ("Short and clear.", {"clear": True, "short": True}, True),  # 3 words
    ("Tiny clear note here.", {"clear": True, "short": True}, True),  # 4 words
    ("This one has six words total.", {"clear": True, "short": True}, False),  # 6 words
    ("Rambling text that goes on and on.", {"clear": False, "short": False}, True),  # 7
    ("Fine.", {"clear": False, "short": True}, False),  # 1 word
    ("Another muddled and overly long answer here.", {"clear": False, "short": False}, False),
]


def labels_file(path, artifacts=ARTIFACTS, shared=True) -> str:
    lines = [json.dumps({"rubric": RUBRIC})] if shared else []
    for number, (artifact, labels, _) in enumerate(artifacts, start=1):
        lines.append(json.dumps({"id": f"a{number}", "artifact": artifact, "labels": labels}))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def judge_answers(artifacts=ARTIFACTS) -> list[dict]:
    return [
        graded([CLEAR]) if passes else graded([CLEAR], {"clear": "Say it plainly."})
        for _, _, passes in artifacts
    ]


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    return cli_runner(tmp_path, monkeypatch, capsys)


CRITIC = ["--critic-model", "scripted:critic"]


def test_calibrate_reports_agreement_and_kappa_worked_out_by_hand(tmp_path, models, cli) -> None:
    judge = models.script("critic", *judge_answers())
    done = cli("calibrate", labels_file(tmp_path / "labels.jsonl"), *CRITIC, "--json")
    assert done.returncode == 0, done.stderr
    assert judge.calls == 6  # the judge grades "clear" even where the word count failed
    report = done.json
    assert report["artifacts"] == 6 and report["critic"] == ["scripted:critic"]
    clear, short, overall = (
        report["criteria"]["clear"],
        report["criteria"]["short"],
        report["overall"],
    )
    # clear: human T T T F F F, critic T T F T F F -> both pass 2, false fail 1,
    # false pass 1, both fail 2; p_o = 4/6; p_e = (3*3 + 3*3)/36 = 1/2;
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert (clear["both_pass"], clear["false_fail"], clear["false_pass"], clear["both_fail"]) == (
        2,
        1,
        1,
        2,
    )
    assert clear["agreement"] == pytest.approx(4 / 6)
    assert clear["kappa"] == pytest.approx(1 / 3)
    assert clear["false_pass_rate"] == pytest.approx(1 / 3)  # 1 of the 3 humans failed
    assert clear["false_fail_rate"] == pytest.approx(1 / 3)  # 1 of the 3 humans passed
    # short (at most 5 words): human T T T F T F, critic T T F F T F -> 3, 1, 0, 2;
    # p_o = 5/6; p_e = (4*3 + 2*3)/36 = 1/2; kappa = (5/6 - 1/2) / (1/2) = 2/3
    assert (short["both_pass"], short["false_fail"], short["false_pass"], short["both_fail"]) == (
        3,
        1,
        0,
        2,
    )
    assert short["kappa"] == pytest.approx(2 / 3)
    assert short["false_pass_rate"] == 0.0 and short["false_fail_rate"] == pytest.approx(1 / 4)
    # overall, 12 pairs: 5, 2, 1, 4; p_o = 9/12; humans pass 7, critic passes 6:
    # p_e = (7*6 + 5*6)/144 = 1/2; kappa = (3/4 - 1/2) / (1/2) = 1/2
    assert overall["n"] == 12 and overall["agreement"] == pytest.approx(0.75)
    assert overall["kappa"] == pytest.approx(0.5)
    assert overall["false_pass_rate"] == pytest.approx(1 / 5)
    assert overall["false_fail_rate"] == pytest.approx(2 / 7)
    assert [
        (d["artifact"], d["criterion"], d["human"], d["critic"]) for d in report["disagreements"]
    ] == [
        ("a3", "clear", "pass", "fail"),
        ("a3", "short", "pass", "fail"),
        ("a4", "clear", "fail", "pass"),
    ]
    short_miss = report["disagreements"][1]
    assert short_miss["source"] == "check" and "6" in short_miss["evidence"]
    assert report["errors"] == [] and report["not_graded"] == []


def test_calibrate_text_report(tmp_path, models, cli) -> None:
    models.script("critic", *judge_answers())
    done = cli("calibrate", labels_file(tmp_path / "labels.jsonl"), *CRITIC)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "critic scripted:critic on 6 labelled artifact(s)"
    assert lines[1].split()[:4] == ["criterion", "n", "agree", "kappa"]
    rows = {line.split()[0]: line.split() for line in lines[2:5]}
    assert rows["clear"][1:6] == ["6", "67%", "0.33", "1/3", "(33%)"]
    assert rows["short"][1:4] == ["6", "83%", "0.67"]
    assert rows["overall"][1:4] == ["12", "75%", "0.50"]
    assert "disagreements: 3" in lines
    assert '  #4 a4 [clear]: human fail, critic pass (judge): It says "Rambling text' in done.stdout


def test_rubrics_per_line_or_from_a_file(tmp_path, models, cli) -> None:
    two = ARTIFACTS[:2]
    (tmp_path / "rubric.json").write_text(json.dumps({"rubric": RUBRIC}))
    models.script("critic", *judge_answers(two))
    shared = cli(
        "calibrate",
        labels_file(tmp_path / "a.jsonl", two, shared=False),
        "--rubric",
        "rubric.json",
        *CRITIC,
        "--json",
    )
    assert shared.returncode == 0, shared.stderr
    assert shared.json["overall"]["n"] == 4 and shared.json["overall"]["agreement"] == 1.0
    own = tmp_path / "own.jsonl"
    own.write_text(
        json.dumps({"artifact": "One two three.", "rubric": [SHORT], "labels": {"short": False}})
        + "\n"
    )
    alone = cli("calibrate", str(own), "--json")  # checks only: no critic model needed
    assert alone.returncode == 0, alone.stderr
    assert alone.json["overall"]["false_pass"] == 1
    # one pair, and they differ: p_o = 0, p_e = (0*1 + 1*0)/1 = 0, so kappa = 0
    assert alone.json["criteria"]["short"]["kappa"] == 0.0


def test_an_artifact_without_a_verdict_is_reported_not_counted(tmp_path, models, cli) -> None:
    models.script("critic", {"results": [], "feedback": "", "passed": True}, *judge_answers()[1:])
    done = cli(
        "calibrate",
        labels_file(tmp_path / "labels.jsonl"),
        *CRITIC,
        "--critic-attempts",
        "1",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    [error] = done.json["errors"]
    assert error["artifact"] == "a1" and "not graded" in error["error"]
    assert done.json["overall"]["n"] == 10


def test_calibrate_through_an_openai_compatible_server(tmp_path, cli) -> None:
    two = ARTIFACTS[:2]
    with ScriptedOpenAIServer(RoleScript(critic=judge_answers(two))) as server:
        done = cli(
            "calibrate",
            labels_file(tmp_path / "labels.jsonl", two),
            "--base-url",
            server.base_url,
            "--model",
            "openai:stub",
            "--json",
        )
    assert done.returncode == 0, done.stderr
    assert done.json["critic"] == ["openai:stub"]
    assert done.json["overall"]["agreement"] == 1.0


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"rubric": RUBRIC}', '{"artifact": "x", "labels": {"clear": true}}', "{oops"],
            "labels.jsonl line 3: not valid JSON",
        ),
        (
            ['{"rubric": RUBRIC}', '{"artifact": "x", "labels": {"tone": true}}'],
            "labels.jsonl line 2: label for unknown criterion 'tone'",
        ),
        (
            ['{"rubric": RUBRIC}', '{"artifact": "x", "labels": {"clear": "yes"}}'],
            "line 2: the label of 'clear' should be true or false",
        ),
        (['{"artifact": "x", "labels": {"clear": true}}'], "line 1: no rubric"),
        (
            ['{"rubric": RUBRIC}', '{"artifact": 3, "labels": {"clear": true}}'],
            "line 2: 'artifact' should be the artifact's text",
        ),
        (
            ['{"rubric": RUBRIC}', '{"artifact": "x", "label": {"clear": true}}'],
            "line 2: unknown key(s) 'label'",
        ),
        (['{"rubric": []}'], "line 1: invalid rubric: Value error, the rubric is empty"),
        (
            ['{"rubric": RUBRIC}', "", '{"rubric": RUBRIC}'],
            "line 3: the shared rubric's line must come first, once",
        ),
        (['{"rubric": RUBRIC}'], "holds no labelled artifact"),
        (["[1, 2]"], "line 1: expected a JSON object"),
    ],
)
def test_malformed_labels_are_a_one_line_error_naming_the_line(tmp_path, cli, lines, message):
    text = "\n".join(line.replace("RUBRIC", json.dumps(RUBRIC)) for line in lines)
    (tmp_path / "labels.jsonl").write_text(text + "\n")
    one_line_error(cli("calibrate", "labels.jsonl", *CRITIC), message)


def test_missing_files_are_a_one_line_error(tmp_path, cli) -> None:
    one_line_error(
        cli("calibrate", "nope.jsonl", *CRITIC),
        "LABELS.jsonl 'nope.jsonl': no such file; give the path of",
    )
    labels_file(tmp_path / "labels.jsonl", shared=False)
    one_line_error(
        cli("calibrate", "labels.jsonl", "--rubric", "nope.json", *CRITIC),
        "--rubric 'nope.json': no such file; give the path of",
    )
    labels_file(tmp_path / "shared.jsonl")
    (tmp_path / "rubric.json").write_text(json.dumps(RUBRIC))
    one_line_error(
        cli("calibrate", "shared.jsonl", "--rubric", "rubric.json", *CRITIC),
        "the rubric is given twice",
    )


def test_piped_calibrate_prints_one_line_per_artifact_graded(tmp_path, models, cli) -> None:
    models.script("critic", *judge_answers())
    done = cli("calibrate", labels_file(tmp_path / "labels.jsonl"), *CRITIC, "--json")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("graded ")]
    assert [line.split(":")[0] for line in lines] == [f"graded {n}/6 a{n}" for n in range(1, 7)]
    assert lines[0].startswith("graded 1/6 a1: agrees on 2/2; 1 call(s), 1 in all; ")
    assert lines[2].startswith("graded 3/6 a3: agrees on 0/2; 1 call(s), 3 in all; ")
    assert lines[-1].endswith("about 0 s left")
    assert done.json["partial"] is False


def test_ctrl_c_stops_calibrate_with_partial_figures(tmp_path, models, cli, monkeypatch) -> None:
    import critic_loop.grading

    real = critic_loop.grading.critique_artifact
    seen: list[str] = []

    def interrupted_at_the_third(artifact, rubric, context):
        seen.append(artifact)
        if len(seen) == 3:
            raise KeyboardInterrupt
        return real(artifact, rubric, context)

    monkeypatch.setattr(critic_loop.grading, "critique_artifact", interrupted_at_the_third)
    models.script("critic", *judge_answers()[:2])
    done = cli("calibrate", labels_file(tmp_path / "labels.jsonl"), *CRITIC)
    assert done.returncode == 130
    assert done.stdout.splitlines()[0] == (
        "critic scripted:critic on 2 labelled artifact(s) (stopped early: partial figures, 2 of 6)"
    )
    assert "overall" in done.stdout  # the figures of the two graded artifacts
    assert "stopped by Ctrl-C after 2 of 6 artifact(s)" in done.stderr


def test_calibrate_on_a_terminal_shows_a_progress_bar(tmp_path) -> None:
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    labels = labels_file(tmp_path / "labels.jsonl")
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "GOOGLE_", "GEMINI_", "CRITIC_LOOP_"))
    }
    environment["COLUMNS"] = "160"
    leader, follower = pty.openpty()
    with ScriptedOpenAIServer(RoleScript(critic=judge_answers())) as server:
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("critic-loop")), "calibrate", labels]
            + ["--base-url", server.base_url, "--model", "openai:stub", "--json"],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=follower,
            stdin=subprocess.DEVNULL,
        )
        os.close(follower)
        screen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the process closed the terminal
                break
            if not chunk:
                break
            screen += chunk
        out, _ = process.communicate(timeout=120)
    os.close(leader)
    assert process.returncode == 0, screen.decode(errors="replace")
    text = screen.decode(errors="replace")
    assert "grading" in text and "6/6" in text  # click's bar: label and position
    assert "6 call(s); a6: agrees on 2/2" in text  # calls made so far
    assert "graded 1/6" not in text  # no plain lines on a terminal
    assert json.loads(out)["overall"]["n"] == 12


def a_judge_that_quotes_nothing_useful(request: dict) -> Text:
    """Words that are not in the artifact; then yes for "clear" artifacts, no otherwise."""
    if not request.get("logprobs"):
        return Text("the answer is easy to follow")
    shown = request["messages"][-1]["content"]
    leaning = 0.5 if "\nN/A\n" in shown else (0.8 if "lear" in shown else 0.3)
    top = (("yes", math.log(leaning)), ("no", math.log(1 - leaning)))
    return Text(top[0][0], top_logprobs=top)


def test_calibrate_fit_stores_the_operators_judge_profile_and_later_runs_use_it(
    tmp_path, cli, monkeypatch
) -> None:
    from critic_loop.nodes.verifiers.judge_profile import load_profile
    from critic_loop.state.operator_settings import operator_settings

    labels = labels_file(tmp_path / "labels.jsonl")
    stored = tmp_path / "judge.json"
    with ScriptedOpenAIServer(a_judge_that_quotes_nothing_useful) as server:
        flags = ("--base-url", server.base_url, "--model", "openai:stub")
        one_line_error(cli("calibrate", labels, *flags, "--fit"), "CRITIC_LOOP_JUDGE_PROFILE")
        monkeypatch.setenv("CRITIC_LOOP_JUDGE_PROFILE", str(stored))
        operator_settings.cache_clear()
        try:
            done = cli("calibrate", labels, *flags, "--fit", "--json")
            text = cli("calibrate", labels, *flags, "--fit").stdout
            lines = [json.loads(line) for line in Path(labels).read_text().splitlines()]
            kinds = tmp_path / "families.jsonl"  # each artifact names its kind of text
            kinds.write_text(
                "".join(
                    json.dumps({**line, "family": "ab"[n % 2]} if "artifact" in line else line)
                    + "\n"
                    for n, line in enumerate(lines)
                )
            )
            by_family = cli("calibrate", str(kinds), *flags, "--fit", "--json")
            shown = cli("models", "--json", *flags)
        finally:
            operator_settings.cache_clear()
    assert done.returncode == 0, done.stderr
    fitted = done.json["fit"]
    assert fitted["labels"] == 6 and fitted["path"] == str(stored)  # "clear" of six artifacts
    assert done.json["judge_mode"] == "extract_ask"
    assert fitted["as_graded"]["n"] == fitted["cross_validated"]["n"] == 6
    assert load_profile(stored).threshold == fitted["threshold"]
    assert "as graded" in text and "fitted, each artifact left out" in text
    assert by_family.returncode == 0, by_family.stderr
    assert fitted["held_out"] == "artifact" and by_family.json["fit"]["held_out"] == "family"
    assert f"stored {stored}: threshold" in text
    assert json.loads(shown.stdout)["judge_profile"]["path"] == str(stored)
