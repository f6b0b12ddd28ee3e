"""A run's input (`LoopInput`), and what is wrong with it in its author's words, one line each."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError, model_validator

from critic_loop.state.errors import InvalidInput
from critic_loop.state.rubric import KINDS, CriterionBase, Rubric, Task
from critic_loop.state.sizes import check_depth

EXAMPLE_INPUT: dict[str, JsonValue] = {
    "task": "Write a two-sentence product description for a 750 ml insulated bottle that "
    "keeps drinks cold for 24 hours.",
    "rubric": [
        {"id": "length", "kind": "word_count", "max": 60},
        {"id": "cold", "text": "It says the bottle keeps drinks cold for 24 hours."},
        {"id": "cta", "text": "Its last sentence invites the reader to buy it."},
    ],
}


class LoopInput(BaseModel):
    """What a caller gives the loop: the task for the worker, the rubric for the critic."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [EXAMPLE_INPUT]})

    task: Task
    rubric: Rubric

    @model_validator(mode="before")
    @classmethod
    def _shallow(cls, data: Any) -> Any:
        return check_depth(data)


def _settings_of(kind: str) -> list[str]:  # its own first, then the common ones
    fields = KINDS[kind].model_fields
    common = set(CriterionBase.model_fields)
    own = [name for name in fields if name not in common and name != "kind"]
    return own + [name for name in CriterionBase.model_fields if name in fields]


ItemLabel = Callable[[int], str]  # names rubric item `index` (from 0) as its author wrote it


def default_label(index: int) -> str:
    """Name rubric item `index` as "rubric item N" (from 1)."""
    return f"rubric item {index + 1}"


def _message(error: dict[str, Any], field: str, criterion_kind: str | None) -> str:
    kind = error["type"]
    message = str(error["msg"]).removeprefix("Value error, ")
    if kind == "union_tag_invalid":
        tag = (error.get("ctx") or {}).get("tag", "?")
        close = difflib.get_close_matches(str(tag).lower(), KINDS, n=1, cutoff=0.6)
        guess = f"did you mean {close[0]!r}? " if close else ""
        return f"kind {tag!r} is not a kind of criterion; {guess}use one of: {', '.join(KINDS)}"
    if kind == "extra_forbidden":
        if criterion_kind in KINDS:
            names = ", ".join(_settings_of(criterion_kind))
            return f"{field!r} is not a setting of a {criterion_kind} criterion; it takes: {names}"
        return f"{field!r} is not a setting of this kind of criterion"
    if kind == "missing":
        return f"{field or str(error['loc'][-1])!r} is required"
    if kind == "string_pattern_mismatch" and field == "id":
        return "the id may use letters, digits and _ . : - (starting with a letter or digit)"
    return f"{field}: {message}" if field else message


def _where(location: Sequence[Any], data: Any, label: ItemLabel) -> tuple[str, str, str | None]:
    """Return (where the problem is, the field within it, the criterion's kind)."""
    if not location or location[0] != "rubric" or len(location) < 2:
        return (str(location[0]) if location else "input"), "", None
    index = location[1]
    if not isinstance(index, int):
        return "rubric", "", None
    where = label(index)
    items = data.get("rubric") if isinstance(data, dict) else None
    if isinstance(items, list) and index < len(items) and isinstance(items[index], dict):
        criterion_id = items[index].get("id")
        if isinstance(criterion_id, str) and criterion_id:
            where += f" ({criterion_id!r})"
    rest = [str(part) for part in location[2:] if str(part) not in KINDS]
    kinds = [str(part) for part in location[2:3] if str(part) in KINDS]
    return where, ".".join(rest), (kinds[0] if kinds else None)


def validated_input(data: Any, label: ItemLabel = default_label) -> LoopInput:
    """Validate a run's task and rubric, or raise `InvalidInput`: one line per problem."""
    try:
        return LoopInput.model_validate(data)
    except ValidationError as error:
        lines = []
        for problem in error.errors():
            where, field, kind = _where(problem["loc"], data, label)
            lines.append(f"{where}: {_message(dict(problem), field, kind)}")
        raise InvalidInput(list(dict.fromkeys(lines))) from error
