"""Sizes: text cut to a length, and input nested too deeply refused before code recurses in it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from critic_loop.state.operator_settings import operator_settings

T = TypeVar("T")

MARKER = " [... {count} characters left out]"


def cut(text: str, limit: int) -> str:
    """Return `text`, or its start and a marker saying how much was left out, in `limit` chars."""
    if len(text) <= limit:
        return text
    marker = MARKER.format(count=len(text))
    if len(marker) >= limit:
        return text[:limit]
    keep = limit - len(marker)
    while len(marker := MARKER.format(count=len(text) - keep)) != limit - keep:
        keep = limit - len(marker)  # fewer digits left out: room for more of the text
    return text[:keep] + marker


def _cut_at(setting: str) -> Callable[[str], str]:
    return lambda text: cut(text, getattr(operator_settings(), setting))


bounded_evidence = _cut_at("max_evidence_chars")
bounded_hint = _cut_at("max_hint_chars")
bounded_feedback = _cut_at("max_feedback_chars")


def share(lengths: Iterable[int], budget: int) -> int | None:
    """Return the largest cap under which the lengths sum to at most `budget` (None: they fit)."""
    ordered = sorted(lengths)
    spent = 0
    for position, length in enumerate(ordered):
        left = len(ordered) - position
        if spent + length * left > budget:
            return max(0, (budget - spent) // left)
        spent += length
    return None  # each length times those left never exceeded the budget: they all fit


def depth_of(value: Any, limit: int) -> int:
    """Return how deeply `value` nests (lists and dicts), counting no further than `limit` + 1."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > limit:
            return depth
        pending.extend((child, depth + 1) for child in children)
    return deepest


def check_depth(value: Any, what: str = "") -> Any:
    """Return `value` if it nests at most `max_nesting_depth` levels, else raise ValueError."""
    return _shallow(value, depth_of, what)


def check_text_depth(text: str, what: str = "") -> str:
    """Return JSON `text` if its brackets nest at most `max_nesting_depth` levels (as above)."""
    return _shallow(text, text_depth, what)


def _shallow(value: T, depth: Callable[[T, int], int], what: str) -> T:
    limit = operator_settings().max_nesting_depth
    if depth(value, limit) > limit:
        said = f"{what} is nested" if what else "nested"
        raise ValueError(f"{said} more than {limit} levels deep (CRITIC_LOOP_MAX_NESTING_DEPTH)")
    return value


def text_depth(text: str, limit: int) -> int:
    """Return how deeply JSON text nests its brackets (strings skipped), up to `limit` + 1."""
    depth = deepest = 0
    in_string = escaped = False
    for character in text:
        if in_string:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
        elif character in "]}":
            depth -= 1
    return deepest
