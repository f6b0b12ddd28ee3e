"""A criterion kind is declared once, by its class; everything that lists kinds derives them."""

import json
import subprocess
import sys
from typing import Literal

import pytest
from pydantic import TypeAdapter

import critic_loop
from critic_loop.cli.rubric_flags import check_flag
from critic_loop.graphs.app import build_graph
from critic_loop.nodes.verifiers.checks import check_of
from critic_loop.state.rubric import KINDS, CriterionBase, Rubric, WordCount
from critic_loop.state.run_input import validated_input

SETTINGS = {  # a valid `--check ID=KIND:SETTINGS` for each kind
    "llm": "text=It is short.",
    "word_count": "max=120",
    "char_count": "min=10",
    "regex": r"pattern=\d+,must_match=false",
    "contains": "phrases=order now|free",
    "headings": "headings=Intro|Usage",
    "json": "",
    "json_schema": 'schema={"type": "object"}',
    "python_syntax": "",
    "language": "language=fr",
    "python_feature": "feature=parameters,count=2",
    "python": "function=json:loads",
    "tests": "tests=def test_it(): pass",
}


def test_every_class_that_declares_a_kind_is_a_kind_and_only_those() -> None:
    declared = {
        cls
        for parent in [CriterionBase, *CriterionBase.__subclasses__()]
        for cls in [parent, *parent.__subclasses__()]
        if "kind" in vars(cls).get("__annotations__", {})
    }
    assert set(KINDS.values()) == declared
    assert {"language", "python_feature"} <= set(KINDS)


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_kind_is_in_the_rubric_schema_the_command_line_and_the_public_api(kind: str) -> None:
    cls = KINDS[kind]
    for schema in (TypeAdapter(Rubric).json_schema(), build_graph().get_input_jsonschema()):
        assert schema["$defs"][cls.__name__]["properties"]["kind"]["const"] == kind
    written = check_flag(f"it={kind}" + (f":{SETTINGS[kind]}" if SETTINGS[kind] else ""))
    (criterion,) = validated_input({"task": "Write.", "rubric": [written]}).rubric
    assert type(criterion) is cls and criterion.model_dump(exclude_unset=True)["kind"] == kind
    assert getattr(critic_loop, cls.__name__) is cls and cls.__name__ in critic_loop.__all__


@pytest.mark.parametrize("kind", [k for k, cls in KINDS.items() if cls.check is not None])
def test_the_check_a_kind_names_is_a_function_of_the_checks(kind: str) -> None:
    assert callable(check_of(KINDS[kind]))


def test_a_mistyped_kind_is_refused_with_every_kind_named() -> None:
    with pytest.raises(ValueError, match="did you mean 'python_feature'.*language"):
        validated_input({"task": "t", "rubric": [check_flag("it=python_featur")]})


def test_a_kind_declared_twice_is_refused() -> None:
    with pytest.raises(TypeError, match="'word_count' is declared by WordCount"):
        type("Twice", (WordCount,), {"__annotations__": {"kind": Literal["word_count"]}})
    assert KINDS["word_count"] is WordCount


DECLARE_A_KIND = """
import json
from typing import Literal
from pydantic import Field, TypeAdapter
from critic_loop.state.rubric import CriterionBase, KINDS


class Shout(CriterionBase):
    '''The artifact is written in capitals (only this class names the kind).'''

    kind: Literal["shout"] = Field(description="Written in capitals.")
    check = "text:check_shout"
    share: float = Field(default=1.0, description="How much of it.")


import critic_loop
from critic_loop.cli.rubric_flags import written_rubric
from critic_loop.graphs.app import build_graph
from critic_loop.state.rubric import Rubric
from critic_loop.state.run_input import validated_input

written = written_rubric([], None, {"--check": ["loud=shout:share=0.5"]})
(loud,) = validated_input({"task": "Write.", "rubric": written.criteria}).rubric
studio = build_graph().get_input_jsonschema()
print(json.dumps({
    "checked": [type(loud).__name__, loud.share],
    "rubric schema": TypeAdapter(Rubric).json_schema()["$defs"]["Shout"]["properties"]["kind"],
    "studio": studio["$defs"]["Shout"]["properties"]["kind"]["const"],
    "public": [critic_loop.Shout is Shout, "Shout" in critic_loop.__all__],
}))
"""


def test_a_kind_declared_once_is_in_the_schema_the_command_line_and_the_public_api() -> None:
    found = subprocess.run(
        [sys.executable, "-c", DECLARE_A_KIND], capture_output=True, text=True, check=True
    )
    said = json.loads(found.stdout)
    assert said["checked"] == ["Shout", 0.5]
    assert said["rubric schema"]["const"] == "shout" == said["studio"]
    assert said["public"] == [True, True]
