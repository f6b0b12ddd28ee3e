"""The command line's flags are generated from `Context`: one per field, never drifting."""

import click
import pytest

from critic_loop.cli import cli
from critic_loop.cli.context_options import chosen_settings, option_name
from critic_loop.state.context import Context


def flags_of(command: click.Command) -> set[str]:
    return {flag for parameter in command.params for flag in parameter.opts}


@pytest.mark.parametrize("command", ["run", "demo"])
def test_every_context_field_has_a_flag(command: str) -> None:
    flags = flags_of(cli.commands[command])
    missing = {option_name(field) for field in Context.model_fields} - flags
    assert missing == set()


def test_boolean_fields_can_be_switched_both_ways() -> None:
    run = cli.commands["run"]
    switches = {
        parameter.name: (parameter.opts, parameter.secondary_opts)
        for parameter in run.params
        if parameter.name == "memory"
    }
    assert switches == {"memory": (["--memory"], ["--no-memory"])}


def test_help_text_and_choices_come_from_the_field() -> None:
    options = {parameter.name: parameter for parameter in cli.commands["run"].params}
    granularity = options["judge_granularity"]
    assert isinstance(granularity.type, click.Choice)
    assert list(granularity.type.choices) == ["rubric", "criterion"]
    assert Context.model_fields["memory_scope"].description in (options["memory_scope"].help or "")


def test_only_the_flags_given_become_settings() -> None:
    context = cli.commands["run"].make_context(
        "run", ["--max-iterations", "4", "--no-recall", "--critic-models", "a:b"]
    )
    assert chosen_settings(context.params) == {
        "max_iterations": 4,
        "recall": False,
        "critic_models": ["a:b"],
    }


@pytest.mark.parametrize(("given", "read"), [("auto", "auto"), ("3", 3)])
def test_a_number_or_a_word_is_read_as_the_field_takes_it(given: str, read: object) -> None:
    context = cli.commands["run"].make_context("run", ["--candidates", given])
    assert chosen_settings(context.params) == {"candidates": read}


@pytest.mark.parametrize("given", ["9", "many", "0"])
def test_a_number_or_word_out_of_bounds_is_one_line_naming_both(given: str) -> None:
    with pytest.raises(click.BadParameter) as raised:
        cli.commands["run"].make_context("run", ["--candidates", given])
    message = raised.value.format_message()
    assert message == (
        f"Invalid value for '--candidates': {given!r} is neither auto nor a whole number "
        "from 1 to 8"
    )
