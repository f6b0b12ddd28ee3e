"""Hold client input to the operator's policy: servers, files and code only the operator picks.

A run is *served* under LangGraph server (`server_info`) or with `CRITIC_LOOP_UNTRUSTED_INPUT`;
docs/security.md has the policy. It is checked in front of every node (`within_policy`) and wherever
a file is read or a function resolved, so a rubric edited in the thread's state is checked too.
"""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from critic_loop.nodes.models.discovery import needs_discovery, with_available_models
from critic_loop.nodes.models.redaction import redacted
from critic_loop.state.context import AUTO_CANDIDATES, Context, as_context
from critic_loop.state.errors import CeilingExceeded, TrustViolation
from critic_loop.state.operator_settings import (
    CONTEXT_CEILINGS,
    TEST_CEILINGS,
    OperatorSettings,
    operator_settings,
    variable,
)
from critic_loop.state.references import resolve_reference
from critic_loop.state.rubric import CriterionBase, PythonCheck, TestSuite


@dataclass(frozen=True)
class Trust:
    """Who submitted the run, and the operator's policy for it."""

    served: bool
    """True when the task, rubric and context came from an untrusted client."""
    settings: OperatorSettings | None = None
    """The operator's settings; None: this process's (read when needed)."""

    @property
    def policy(self) -> OperatorSettings:
        return self.settings if self.settings is not None else operator_settings()


OPERATOR = Trust(served=False)
"""The trust of a run the operator started (command line, Python)."""


def trust_of(runtime: Runtime[Any] | None = None) -> Trust:
    """Return the trust of the run `runtime` belongs to (None: one this process starts)."""
    settings = operator_settings()
    served = runtime is not None and runtime.server_info is not None
    return Trust(served=served or settings.untrusted_input, settings=settings)


_policed: dict[tuple[int, bool, int], tuple[weakref.ref[Context], Context]] = {}


def within_policy(runtime: Runtime[Any]) -> Runtime[Context]:
    """Return `runtime` with its context held to the policy, then its unset models found.

    Settled once per context object and policy. Raises `TrustViolation` (a server, directory
    or ceiling the operator did not allow) or `DiscoveryFailed`.
    """
    given, trust = runtime.context, trust_of(runtime)
    if (known := _known(given, trust)) is not None:
        return runtime.override(context=known)
    context = with_available_models(check_context(as_context(given), trust))
    if isinstance(given, Context):
        key = (id(given), trust.served, id(trust.policy))
        forget = functools.partial(_policed.pop, key, None)  # bound now: still there at shutdown
        _policed[key] = (weakref.ref(given, lambda _: forget()), context)
    return runtime.override(context=context)


def _known(given: Any, trust: Trust) -> Context | None:
    known = _policed.get((id(given), trust.served, id(trust.policy)))
    return known[1] if known is not None and known[0]() is given else None


def needs_network(runtime: Runtime[Any]) -> bool:
    """Say whether `within_policy(runtime)` would ask a model server which model it serves."""
    known = _known(runtime.context, trust_of(runtime))
    return known is None and needs_discovery(as_context(runtime.context))


def check_context(context: Context, trust: Trust) -> Context:
    """Return `context` if this run may use it (else `TrustViolation`), held to the ceilings."""
    if not trust.served:
        return held_to_ceilings(context, trust)
    if context.base_url is not None:
        operators = [os.environ.get("OPENAI_BASE_URL"), os.environ.get("CRITIC_LOOP_BASE_URL")]
        allowed = {url.rstrip("/") for url in [*operators, *trust.policy.allowed_base_urls] if url}
        if context.base_url.rstrip("/") not in allowed:
            raise TrustViolation(
                f"base_url {redacted(context.base_url)!r} is not allowed: a client may use only "
                "the operator's server or one of CRITIC_LOOP_ALLOWED_BASE_URLS"
            )
    if context.prompts_dir is not None:
        _allowed_path(context.prompts_dir, trust, "prompts_dir")
    return held_to_ceilings(context, trust)


def _shown(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _over(what: str, amount: float, ceiling: float, name: str) -> str:
    return f"{what}={_shown(amount)} (the most is {_shown(ceiling)}, {variable(name)})"


def _refuse(refused: list[str], where: str) -> None:
    if refused:
        raise CeilingExceeded(
            f"{where} asks for more than this server allows: " + "; ".join(refused)
        )


def _amount(value: Any) -> Any:  # a list's length, the most "auto" candidates may be
    if isinstance(value, list):
        return len(value)
    return AUTO_CANDIDATES if value == "auto" else value


def _lowered(
    values: Any, ceilings: dict[str, str], trust: Trust, where: str, chosen: Callable[..., bool]
) -> dict[str, Any]:
    # the settings above their ceilings that nobody chose, lowered; those chosen are refused in
    # a served run (all named at once) and kept in the operator's own
    lowered: dict[str, Any] = {}
    refused: list[str] = []
    for setting, name in ceilings.items():
        ceiling, value = getattr(trust.policy.ceilings, name), getattr(values, setting)
        amount = _amount(value)
        if amount is not None and amount <= ceiling:
            continue
        if amount is None or not chosen(setting, value):
            lowered[setting] = value[:ceiling] if isinstance(value, list) else ceiling
        elif trust.served:
            refused.append(_over(setting, amount, ceiling, name))
    _refuse(refused, where)
    return lowered


def held_to_ceilings(context: Context, trust: Trust) -> Context:
    """Return `context` with every count and limit within the operator's ceilings.

    A value nobody chose is lowered to the ceiling; one chosen above it (in a served run: not
    this deployment's default) raises `CeilingExceeded` naming all, or stays in the operator's.
    """
    deployment = functools.cache(Context)

    def chosen(name: str, value: Any) -> bool:
        if trust.served:
            return bool(value != getattr(deployment(), name))
        return name in context.model_fields_set

    names = {name: name for name in CONTEXT_CEILINGS}
    lowered = _lowered(context, names, trust, "the run's context", chosen)
    if not lowered:
        return context
    # lowering is not the run's choice: settings it left unset stay unset (model_copy would
    # mark them set, and the model rule fills only what a run left unset)
    return type(context).model_construct(
        _fields_set=set(context.model_fields_set), **{**dict(context), **lowered}
    )


def _suite_within_ceilings(criterion: TestSuite, trust: Trust) -> TestSuite:
    def chosen(setting: str, value: int) -> bool:
        return setting in criterion.model_fields_set

    lowered = _lowered(criterion, TEST_CEILINGS, trust, f"criterion {criterion.id!r}", chosen)
    return criterion.model_copy(update=lowered) if lowered else criterion


def _allowed_path(path: str, trust: Trust, what: str) -> Path:
    resolved = Path(path).resolve()
    if not trust.served:
        return resolved
    for directory in trust.policy.allowed_paths:
        if resolved.is_relative_to(Path(directory).resolve()):
            return resolved
    raise TrustViolation(
        f"{what} {path!r} is not allowed: a client may name files only under "
        "CRITIC_LOOP_ALLOWED_PATHS"
    )


def resolve_check(reference: str, trust: Trust) -> Callable[..., Any]:
    """Return the function a `python` check names, if this run may call it."""
    return resolve_reference(
        reference, client=trust.served, client_modules=trust.policy.python_check_modules
    )


def with_tests_inline(criterion: TestSuite, trust: Trust) -> TestSuite:
    """Return `criterion` with its `tests_file` read in, if this run may read that file."""
    if criterion.tests_file is None:
        return criterion
    path = _allowed_path(criterion.tests_file, trust, f"criterion {criterion.id!r}: tests_file")
    if not path.is_file():
        raise FileNotFoundError(
            f"criterion {criterion.id!r}: tests_file {criterion.tests_file!r} not found"
        )
    return criterion.model_copy(update={"tests": path.read_text(), "tests_file": None})


def runnable_suite(criterion: TestSuite, trust: Trust) -> TestSuite:
    """Return `criterion` as it runs: its tests read in, its limits within the ceilings."""
    return _suite_within_ceilings(with_tests_inline(criterion, trust), trust)


def check_rubric(rubric: Sequence[CriterionBase], trust: Trust) -> None:
    """Raise if the rubric names code or files this run may not use, or that do not exist."""
    for criterion in rubric:
        if isinstance(criterion, PythonCheck):
            resolve_check(str(criterion.function), trust)
        elif isinstance(criterion, TestSuite):
            runnable_suite(criterion, trust)
