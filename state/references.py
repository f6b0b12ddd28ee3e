"""Refer to Python functions by "package.module:qualname", so rubrics stay serializable."""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Sequence
from typing import Any

from critic_loop.state.errors import TrustViolation

_registered: dict[str, Callable[..., Any]] = {}


def register_check(function: Callable[..., Any]) -> str:
    """Let clients of a served graph use `function` as a `python` check; return its reference."""
    module = getattr(function, "__module__", None) or "__main__"
    qualname = getattr(function, "__qualname__", None) or type(function).__qualname__
    reference = f"{module}:{qualname}"
    if "<" in qualname or _importable_as(reference) is not function:
        reference = f"{module}:{qualname}#{id(function):x}"
    _registered[reference] = function
    return reference


def _importable_as(reference: str) -> Any:
    try:
        return pkgutil.resolve_name(reference)
    except (ImportError, AttributeError, ValueError):
        return None


def resolve_reference(
    reference: str, *, client: bool = False, client_modules: Sequence[str] = ()
) -> Callable[..., Any]:
    """Return the function `reference` names (a client's: only registered or `client_modules`).

    Raises `TrustViolation` for a client's other functions, `LookupError` if it is not found.
    """
    if reference in _registered:
        return _registered[reference]
    if client and not {reference, reference.partition(":")[0]} & set(client_modules):
        raise TrustViolation(
            f"python check {reference!r} is not allowed: clients may use only the functions "
            "the operator registered (critic_loop.register_check) or those of the modules "
            "in CRITIC_LOOP_PYTHON_CHECK_MODULES"
        )
    if ":" not in reference:
        raise LookupError(f"{reference!r} is not a 'package.module:function' reference")
    if "#" in reference:
        raise LookupError(
            f"{reference!r} names a function that was only registered in another process "
            "(a lambda or closure); pass the callable again or use an importable function"
        )
    try:
        target = pkgutil.resolve_name(reference)
    except (ImportError, AttributeError, ValueError) as error:
        raise LookupError(f"cannot import {reference!r}: {error}") from error
    if not callable(target):
        raise LookupError(f"{reference!r} is not callable")
    function: Callable[..., Any] = target
    return function
