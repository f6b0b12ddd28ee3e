"""A thread keeps the settings it ran with, and whose they were."""

import json

from critic_loop.state.context import Context
from critic_loop.thread_settings import SETTINGS_KEY, settings_metadata, stored_settings


def test_a_run_keeps_its_own_settings_and_models_as_the_operators() -> None:
    context = Context(worker_model="openai:w", max_iterations=3)
    kept = stored_settings(settings_metadata(context, by_client=False))
    assert kept is not None and kept.by_client is False
    assert kept.values == {
        "worker_model": "openai:w",
        "critic_model": "openai:gpt-4.1",
        "max_iterations": 3,
    }


def test_a_process_serving_untrusted_callers_keeps_them_as_a_clients() -> None:
    kept = stored_settings(settings_metadata(Context(), by_client=True))
    assert kept is not None and kept.by_client is True


def test_a_served_runs_settings_are_a_clients_whatever_its_metadata_claims() -> None:
    forged = json.dumps({"settings": {"base_url": "http://elsewhere"}, "by_client": False})
    metadata = {"graph_id": "critic_loop", "base_url": "http://x", "max_iterations": 9}
    kept = stored_settings({**metadata, SETTINGS_KEY: forged, "user-agent": "sdk"})
    assert kept is not None and kept.by_client is True
    assert kept.values == {"base_url": "http://x", "max_iterations": 9}


def test_a_thread_without_settings_has_none() -> None:
    assert stored_settings({"run_id": "r1", "step": 3}) is None
    assert stored_settings({SETTINGS_KEY: "not json"}) is None
