"""A client's drafted code runs in the complete sandbox or not at all; a lost sandbox is named."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from critic_loop.nodes.operator_policy import OPERATOR, Trust
from critic_loop.nodes.verifiers.checks.test_suite import (
    arun_test_suite,
    run_test_suite,
    sandbox_for,
)
from critic_loop.sandbox import isolation as sandbox
from critic_loop.state.errors import IsolationUnavailable
from critic_loop.state.operator_settings import OperatorSettings
from critic_loop.state.rubric import TestSuite
from tests.support.code_task import ADD_TESTS, CORRECT

pytestmark = pytest.mark.integration

BWRAP = shutil.which("bwrap")


def served(**settings: object) -> Trust:
    return Trust(served=True, settings=OperatorSettings(**settings))


@pytest.fixture
def no_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> sandbox.Isolation:
    found = sandbox.probe(None, shutil.which("unshare"))
    monkeypatch.setattr(sandbox, "isolation", lambda: found)
    monkeypatch.delenv(sandbox.REQUIRE_VARIABLE, raising=False)
    return found


def test_a_served_run_is_refused_in_one_line_saying_what_to_install(no_bubblewrap) -> None:
    with pytest.raises(IsolationUnavailable) as refused:
        sandbox_for(served())
    message = str(refused.value)
    assert "\n" not in message
    assert "bubblewrap (bwrap) is not installed" in message
    assert "apt-get install bubblewrap" in message
    assert "CRITIC_LOOP_ALLOW_INCOMPLETE_SANDBOX=true" in message


def test_only_the_operator_says_drafted_code_may_run_with_less(no_bubblewrap) -> None:
    assert sandbox_for(served(allow_incomplete_sandbox=True)) is no_bubblewrap
    assert sandbox_for(OPERATOR) is no_bubblewrap  # the operator's own run: a warning


@pytest.mark.skipif(BWRAP is None, reason="needs bubblewrap")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_bubblewrap_vanishing_while_the_process_runs_is_a_clear_error(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "bin" / "bwrap"
    copy.parent.mkdir()
    shutil.copy2(str(BWRAP), copy)
    monkeypatch.setenv("PATH", f"{copy.parent}:/usr/bin:/bin")
    sandbox.isolation.cache_clear()
    try:
        assert sandbox.isolation().bwrap == str(copy)
        copy.unlink()  # as if the package was removed while the server runs
        criterion = TestSuite(id="tests", kind="tests", tests=ADD_TESTS, timeout_seconds=20)
        with pytest.raises(IsolationUnavailable) as lost:
            if mode == "sync":
                run_test_suite(criterion, CORRECT)
            else:
                asyncio.run(arun_test_suite(criterion, CORRECT))
        assert f"{copy} is gone" in str(lost.value)
        assert "apt-get install bubblewrap" in str(lost.value)
        monkeypatch.setenv("PATH", "/usr/bin:/bin")
        assert sandbox.isolation().bwrap == BWRAP  # the next run looks again
    finally:
        sandbox.isolation.cache_clear()
