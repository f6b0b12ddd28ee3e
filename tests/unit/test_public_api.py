"""`import critic_loop` offers what `__all__` names, each imported from its module on first use."""

import critic_loop


def test_every_name_in_all_has_a_home_and_nothing_else_does() -> None:
    assert set(critic_loop.__all__) == set(critic_loop._HOME_OF)


def test_every_public_name_resolves_to_its_module_s_object() -> None:
    for name in critic_loop.__all__:
        value = getattr(critic_loop, name)
        assert value is getattr(__import__(critic_loop._HOME_OF[name], fromlist=[name]), name)
