import pytest
from jinja2 import UndefinedError

from critic_loop.nodes.prompts import render_prompt


def test_built_in_prompt_renders() -> None:
    assert render_prompt("worker_task.jinja", task="Write a haiku.", rules=[]) == "Write a haiku."


def test_task_prompt_puts_recalled_rules_after_the_task() -> None:
    # the local 0.5B model ignored a rule listed before the task (or in the system prompt)
    # and followed it when it came after the task, as something important
    rendered = render_prompt(
        "worker_task.jinja", task="Write a haiku.", rules=["Count syllables per line."]
    )
    assert rendered.splitlines() == [
        "Write a haiku.",
        "",
        "Important, from earlier work of this kind:",
        "- Count syllables per line.",
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


def test_a_broken_replacement_template_fails_at_preflight(tmp_path) -> None:
    from jinja2 import TemplateSyntaxError

    from critic_loop.nodes.prompts import load_prompts

    (tmp_path / "critic_system.jinja").write_text("{% if %}")
    with pytest.raises(TemplateSyntaxError):
        load_prompts(str(tmp_path))


def test_rendering_does_no_file_io_after_loading(tmp_path, monkeypatch) -> None:
    import os

    from critic_loop.nodes.prompts import load_prompts

    (tmp_path / "worker_task.jinja").write_text("T: {{ task }}")
    load_prompts(str(tmp_path))
    calls = []
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda *a, **k: calls.append(a) or real_stat(*a, **k))
    assert render_prompt("worker_task.jinja", str(tmp_path), task="x") == "T: x"
    assert render_prompt("critic_system.jinja", str(tmp_path)).startswith("You are")
    assert calls == []
