"""Output schemas every structured-output provider accepts: every field required, none extra."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel


class InvalidAnswer(ValueError):
    """A model's structured answer that cannot be accepted, with every reason why."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def portable_schema(model: type[BaseModel], description: str) -> dict[str, Any]:
    """Return `model`'s JSON schema with references inlined and a top-level description."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(definitions[node["$ref"].rsplit("/", 1)[-1]])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    return {**inline(schema), "description": description}
