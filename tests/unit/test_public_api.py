"""`import critic_loop` offers what `__all__` names, each imported from its module on first use."""

import asyncio

import pytest

import critic_loop


def test_every_name_in_all_has_a_home_and_nothing_else_does() -> None:
    assert critic_loop.__all__ == sorted(critic_loop.homes())
    assert set(critic_loop.__all__) <= set(dir(critic_loop))


def test_every_public_name_resolves_to_its_module_s_object() -> None:
    for name in critic_loop.__all__:
        value = getattr(critic_loop, name)
        assert value is getattr(__import__(critic_loop.homes()[name], fromlist=[name]), name)


def test_a_star_import_offers_every_public_name() -> None:
    offered: dict[str, object] = {}
    exec("from critic_loop import *", offered)
    assert set(critic_loop.__all__) <= set(offered)
    assert {"Criterion", "WordCount", "Language", "PythonFeature", "TestSuite"} <= set(offered)


def test_a_misspelt_keyword_is_refused_before_any_work() -> None:
    rubric = [{"id": "short", "kind": "word_count", "max": 5}]
    with pytest.raises(TypeError, match="run_loop.*: db"):
        critic_loop.run_loop("task", rubric, db="elsewhere.sqlite")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="arun_loop.*: db"):
        asyncio.run(critic_loop.arun_loop("task", rubric, db="x"))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="fork_loop.*: thread"):
        critic_loop.fork_loop("t", 1, thread="t")  # type: ignore[call-arg]
