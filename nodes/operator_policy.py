"""Hold client input to the operator's policy: servers, files and code only the operator picks.

A run is *served* when LangGraph server runs it (the runtime carries `server_info`) or
when the operator says this process serves untrusted callers
(`CRITIC_LOOP_UNTRUSTED_INPUT`). In a served run the context and the rubric came from a
client, so:

- `base_url` must be the operator's own server (OPENAI_BASE_URL / CRITIC_LOOP_BASE_URL) or
  one of `CRITIC_LOOP_ALLOWED_BASE_URLS`: a client cannot send the operator's API key, or
  any request, to a host of its choosing;
- `prompts_dir` and a test criterion's `tests_file` must lie under
  `CRITIC_LOOP_ALLOWED_PATHS` (after resolving symbolic links);
- a `python` check must name a function the operator registered in code, or one of
  `CRITIC_LOOP_PYTHON_CHECK_MODULES`.

These are checked whenever a node reads its context (`context_of`, so a resumed run with
new settings is checked too) and wherever a file is read or a function resolved (so a
rubric edited in the thread's state is checked too). In a run that is not served the caller is the
operator, and may name any of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from critic_loop.state.context import Context, as_context
from critic_loop.state.errors import TrustViolation
from critic_loop.state.operator_settings import OperatorSettings, operator_settings
from critic_loop.state.references import resolve_reference
from critic_loop.state.rubric import CriterionBase, PythonCheck, TestSuite


@dataclass(frozen=True)
class Trust:
    """Who submitted the run, and the operator's policy for it."""

    served: bool
    """True when the task, rubric and context came from an untrusted client."""
    settings: OperatorSettings = field(default_factory=operator_settings)


OPERATOR = Trust(served=False)
"""The trust of a run the operator started (command line, Python)."""


def trust_of(runtime: Runtime[Any]) -> Trust:
    """Return the trust of the run `runtime` belongs to."""
    settings = operator_settings()
    return Trust(
        served=runtime.server_info is not None or settings.untrusted_input, settings=settings
    )


ContextReader = Callable[[Runtime[Any]], Context]
"""How a node reads its run's context from its runtime (`context_of`, unless told otherwise)."""


def context_of(runtime: Runtime[Any]) -> Context:
    """Return the run's context, or the defaults (with env overrides) when none was given.

    Every node reads its context through here, so a client's context is held to the
    operator's policy at each step (a resumed run with new settings too).

    Raises:
        TrustViolation: a client chose a server or a directory the operator did not allow.
    """
    return check_context(as_context(runtime.context), trust_of(runtime))


def _operator_base_urls() -> set[str]:
    urls = {os.environ.get("OPENAI_BASE_URL"), os.environ.get("CRITIC_LOOP_BASE_URL")}
    return {url.rstrip("/") for url in urls if url}


def check_context(context: Context, trust: Trust) -> Context:
    """Return `context` if a client may use it as it is.

    Raises:
        TrustViolation: it names a server or a directory the operator did not allow.
    """
    if not trust.served:
        return context
    if context.base_url is not None:
        allowed = _operator_base_urls() | {
            url.rstrip("/") for url in trust.settings.allowed_base_urls
        }
        if context.base_url.rstrip("/") not in allowed:
            raise TrustViolation(
                f"base_url {context.base_url!r} is not allowed: a client may use only the "
                "operator's server or one of CRITIC_LOOP_ALLOWED_BASE_URLS"
            )
    if context.prompts_dir is not None:
        allowed_path(context.prompts_dir, trust, "prompts_dir")
    return context


def allowed_path(path: str, trust: Trust, what: str) -> Path:
    """Return `path` resolved, if the run may read it.

    Raises:
        TrustViolation: a client named a path outside CRITIC_LOOP_ALLOWED_PATHS.
    """
    resolved = Path(path).resolve()
    if not trust.served:
        return resolved
    for directory in trust.settings.allowed_paths:
        if resolved.is_relative_to(Path(directory).resolve()):
            return resolved
    raise TrustViolation(
        f"{what} {path!r} is not allowed: a client may name files only under "
        "CRITIC_LOOP_ALLOWED_PATHS"
    )


def resolve_check(reference: str, trust: Trust) -> Callable[..., Any]:
    """Return the function a `python` check names, if this run may call it (see module doc)."""
    return resolve_reference(
        reference, client=trust.served, client_modules=trust.settings.python_check_modules
    )


def with_tests_inline(criterion: TestSuite, trust: Trust) -> TestSuite:
    """Return `criterion` with its `tests_file` read in, if this run may read that file.

    Raises:
        TrustViolation: a client named a file outside CRITIC_LOOP_ALLOWED_PATHS.
        FileNotFoundError: the file does not exist.
    """
    if criterion.tests_file is None:
        return criterion
    path = allowed_path(criterion.tests_file, trust, f"criterion {criterion.id!r}: tests_file")
    if not path.is_file():
        raise FileNotFoundError(
            f"criterion {criterion.id!r}: tests_file {criterion.tests_file!r} not found"
        )
    return criterion.model_copy(update={"tests": path.read_text(), "tests_file": None})


def check_rubric(rubric: Sequence[CriterionBase], trust: Trust) -> None:
    """Raise if the rubric names code or files this run may not use (see module doc).

    Raises:
        TrustViolation: a client named a function or a file the operator did not allow.
        LookupError, FileNotFoundError: the function or file does not exist.
    """
    for criterion in rubric:
        if isinstance(criterion, PythonCheck):
            resolve_check(str(criterion.function), trust)
        elif isinstance(criterion, TestSuite):
            with_tests_inline(criterion, trust)
