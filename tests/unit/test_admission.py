"""Webhooks only to allowed public hosts, no credential in a message, a prompt within budget."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from critic_loop.nodes.models.gateway import ModelUnreachable
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.redaction import redacted
from critic_loop.serving.admission import webhook_problem
from critic_loop.state.budget import Allowance
from critic_loop.state.operator_settings import OperatorSettings, operator_settings

ADDRESSES = {
    "hooks.example.com": "93.184.216.34",
    "a.b.example.com": "93.184.216.35",
    "inside.example.com": "10.0.0.7",
}


@pytest.fixture
def hosts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CRITIC_LOOP_WEBHOOK_HOSTS", "hooks.example.com,*.example.com,10.1.2.3")
    operator_settings.cache_clear()

    def resolve(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        address = ADDRESSES.get(host, host)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    yield
    operator_settings.cache_clear()


def test_webhooks_are_refused_unless_the_operator_names_hosts() -> None:
    operator_settings.cache_clear()
    problem = webhook_problem("https://hooks.example.com/done")
    assert problem is not None and "CRITIC_LOOP_WEBHOOK_HOSTS" in problem


@pytest.mark.usefixtures("hosts")
def test_a_webhook_goes_only_to_an_allowed_host_at_a_public_address() -> None:
    assert webhook_problem("https://hooks.example.com/done") is None
    assert webhook_problem("http://a.b.example.com:8443/done") is None  # "*.example.com"
    for url, said in {
        "https://example.org/done": "is not one of CRITIC_LOOP_WEBHOOK_HOSTS",
        "https://inside.example.com/done": "10.0.0.7, a private, loopback or link-local",
        "https://10.1.2.3/done": "a private",
        "/runs/x": "is not one of",
        "ftp://hooks.example.com/x": "is not one of",
        "https://hooks.example.com:99999/x": "names no host that resolves",
    }.items():
        problem = webhook_problem(url)
        assert problem is not None and said in problem, (url, problem)


def test_a_urls_user_info_and_secret_values_are_redacted() -> None:
    assert redacted("at http://me:pw@host:1/v1 and https://h/x?api_key=k1&q=2") == (
        "at http://***@host:1/v1 and https://h/x?api_key=***&q=2"
    )
    request = httpx.Request("POST", "http://me:pw@127.0.0.1:9/v1/chat/completions")
    error = ModelUnreachable("worker", "openai:x", None, httpx.ConnectError("no", request=request))
    assert "pw" not in str(error) and "http://***@127.0.0.1:9/v1" in str(error)


@pytest.mark.parametrize("client", ["httpx", "httpx2"])
def test_the_model_clients_request_lines_are_logged_without_credentials(
    client: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger=client):
        url = httpx.URL("http://me:pw@host/v1/chat/completions")
        logging.getLogger(client).info('HTTP Request: %s %s "%s"', "POST", url, "HTTP/1.1 200 OK")
    assert caplog.messages == [
        'HTTP Request: POST http://***@host/v1/chat/completions "HTTP/1.1 200 OK"'
    ]


def test_a_prompt_larger_than_the_whole_token_budget_is_never_sent() -> None:
    ledger = Ledger(Allowance(tokens=400, largest_prompt=1000))
    assert ledger.admit(prompt_tokens=1001) == "the token budget ran out"
    assert ledger.admit(prompt_tokens=1000) is None  # what is left may be passed, as ever


def test_every_operator_setting_is_documented_in_the_security_page() -> None:
    page = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    for name in OperatorSettings.model_fields:
        variable = "CRITIC_LOOP_CEILING_" if name == "ceilings" else f"CRITIC_LOOP_{name.upper()}"
        assert variable in page, variable
