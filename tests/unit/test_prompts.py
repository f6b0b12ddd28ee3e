import pytest
from jinja2 import UndefinedError

from nodes.prompts import render_prompt


def test_built_in_prompt_renders() -> None:
    assert render_prompt("worker_task.jinja", task="Write a haiku.", rules=[]) == "Write a haiku."


def test_task_prompt_puts_recalled_rules_before_the_task() -> None:
    rendered = render_prompt(
        "worker_task.jinja", task="Write a haiku.", rules=["Count syllables per line."]
    )
    assert rendered.splitlines() == [
        "Lessons from earlier work of this kind:",
        "- Count syllables per line.",
        "",
        "Write a haiku.",
    ]


def test_user_directory_replaces_a_prompt_by_name(tmp_path) -> None:
    (tmp_path / "worker_task.jinja").write_text("TASK >> {{ task }}")
    assert render_prompt("worker_task.jinja", str(tmp_path), task="x") == "TASK >> x"
    assert "reviewer" in render_prompt("critic_system.jinja", str(tmp_path))


def test_undefined_variable_in_a_replacement_fails_loudly(tmp_path) -> None:
    (tmp_path / "worker_task.jinja").write_text("{{ taks }}")
    with pytest.raises(UndefinedError):
        render_prompt("worker_task.jinja", str(tmp_path), task="x")


def test_missing_prompts_dir_is_an_error(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        render_prompt("worker_task.jinja", str(tmp_path / "nope"), task="x")
