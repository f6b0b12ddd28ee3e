"""Whether a run's drafted code may run in the sandbox this system has.

A client's drafted code (a served run: LangGraph server, or `CRITIC_LOOP_UNTRUSTED_INPUT`)
runs only in the complete sandbox (`sandbox.Isolation.complete`): where bubblewrap is
missing or cannot work, such a run is refused, at `check_input` before any model call and
again before each test run, with one line saying what to install. The operator may accept
less, explicitly: `CRITIC_LOOP_ALLOW_INCOMPLETE_SANDBOX=true`. The operator's own runs
(command line, Python) use what there is, with a warning, unless
`CRITIC_LOOP_REQUIRE_ISOLATION=1` makes them refuse too.
"""

from __future__ import annotations

from critic_loop.nodes.operator_policy import Trust
from critic_loop.nodes.verifiers.checks import sandbox
from critic_loop.state.errors import IsolationUnavailable

ALLOW_VARIABLE = "CRITIC_LOOP_ALLOW_INCOMPLETE_SANDBOX"
"""The operator's explicit consent to run clients' code in an incomplete sandbox."""


def sandbox_for(trust: Trust) -> sandbox.Isolation:
    """Return the sandbox this run's drafted code runs in (probed once per process).

    Raises:
        IsolationUnavailable: the run is served, the sandbox incomplete and the operator
            did not allow that; or CRITIC_LOOP_REQUIRE_ISOLATION=1 and it is incomplete.
    """
    found = sandbox.isolation()
    settings = trust.policy
    if trust.served and not found.complete and not settings.allow_incomplete_sandbox:
        raise IsolationUnavailable(
            "This server runs no client's drafted code without the complete sandbox, and "
            f"{sandbox.shortfall(found)}: {sandbox.INSTALL}, or set {ALLOW_VARIABLE}=true "
            "to run it with less isolation."
        )
    return sandbox.ensure_isolation()  # what is missing: a warning, or an error if required
