"""Refer to Python functions by "package.module:qualname", so rubrics stay serializable.

A module-level function is referred to by its import path, which any process can resolve.
A function that cannot be imported that way (a lambda, a closure) is registered in this
process and gets a reference with a `#` suffix; another process cannot resolve it, and
says so clearly.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_registered: dict[str, Callable[..., Any]] = {}


def _lookup(module: str, qualname: str) -> Any:
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def reference_to(function: Callable[..., Any]) -> str:
    """Return a reference that `resolve_reference` turns back into `function`."""
    module = getattr(function, "__module__", None) or "__main__"
    qualname = getattr(function, "__qualname__", None) or type(function).__qualname__
    if "<" not in qualname:
        try:
            if _lookup(module, qualname) is function:
                return f"{module}:{qualname}"
        except (ImportError, AttributeError):
            pass
    reference = f"{module}:{qualname}#{id(function):x}"
    _registered[reference] = function
    return reference


def resolve_reference(reference: str) -> Callable[..., Any]:
    """Return the function `reference` names.

    Raises:
        LookupError: it cannot be found (not importable, or registered in another process).
    """
    if reference in _registered:
        return _registered[reference]
    module, _, qualname = reference.partition(":")
    if "#" in qualname:
        raise LookupError(
            f"{reference!r} names a function that was only registered in another process "
            "(a lambda or closure); pass the callable again or use an importable function"
        )
    try:
        target = _lookup(module, qualname)
    except (ImportError, AttributeError, ValueError) as error:
        raise LookupError(f"cannot import {reference!r}: {error}") from error
    if not callable(target):
        raise LookupError(f"{reference!r} is not callable")
    function: Callable[..., Any] = target
    return function
