"""The CLI against a local llama.cpp server: the ``/props`` tool-support check, the
chat-template stop sequences, and exit 7 for an answer cut at the output token limit.

``/props`` is served by a loopback HTTP server in a thread (the same bytes llama-server sends);
``tests-integration/test_llamacpp_cli.py`` runs the same paths against a real llama-server.
"""

from __future__ import annotations

import doctest
import http.server
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from robota.cli import local_server
from robota.cli.exit_codes import ExitCode
from robota.cli.local_server import (
    TEMPLATE_STOP_SEQUENCES,
    TOOLS_DROPPED,
    local_model_settings,
    template_supports_tools,
    warn_if_tools_dropped,
)
from robota.cli.turn import exit_for
from robota.core.errors import ProviderError, TruncatedResponseError
from robota.framework.settings import ResolvedProvider

GEMMA_PROPS = {
    "model_alias": "local",
    "chat_template": "{% for message in messages %}...{% endfor %}",
    "chat_template_caps": {"supports_tool_calls": False, "supports_tools": False},
}
QWEN_PROPS = {
    "model_alias": "local",
    "chat_template_caps": {"supports_tool_calls": True, "supports_tools": True},
}


@dataclass(kw_only=True, slots=True)
class PropsServer:
    """What the loopback server answers on GET /props, and the paths it was asked for."""

    status: int = 200
    body: bytes = b""
    requests: list[str] = field(default_factory=list[str])
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@pytest.fixture
def props() -> Iterator[PropsServer]:
    state = PropsServer()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.requests.append(self.path)
            self.send_response(state.status if self.path == "/props" else 404)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(state.body)

        def log_message(self, format: str, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _resolved(
    base_url: str | None, *, kind: str = "openai-compatible", compat: str | None = "llamacpp"
) -> ResolvedProvider:
    return ResolvedProvider(
        profile="cli",
        type=kind,
        model="local",
        api_key=None,
        base_url=base_url,
        compat_profile=compat,
    )


def test_a_template_without_tool_support_is_said_once(props: PropsServer) -> None:
    props.body = json.dumps(GEMMA_PROPS).encode()
    said: list[str] = []

    assert warn_if_tools_dropped(_resolved(props.base_url), said.append) is True

    assert said == [TOOLS_DROPPED]
    assert TOOLS_DROPPED.startswith("the model server's chat template does not support tools; ")
    # tools/serve-local-model passes --jinja already: the line must not tell to add it
    assert "no tool support, even with `llama-server --jinja`" in TOOLS_DROPPED
    assert props.requests == ["/props"]


def test_a_template_with_tool_support_says_nothing(props: PropsServer) -> None:
    props.body = json.dumps(QWEN_PROPS).encode()
    said: list[str] = []

    assert warn_if_tools_dropped(_resolved(props.base_url + "/"), said.append) is False

    assert said == []
    assert props.requests == ["/props"]


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (404, b'{"error": "not found"}'),
        (200, b"<html>not json</html>"),
        (200, b'{"model_alias": "local"}'),
        (200, b'{"chat_template_caps": {"supports_tools": "no"}}'),
        (200, b"[]"),
    ],
)
def test_an_unclear_answer_is_ignored(props: PropsServer, status: int, body: bytes) -> None:
    props.status, props.body = status, body

    assert template_supports_tools(props.base_url) is None
    said: list[str] = []
    assert warn_if_tools_dropped(_resolved(props.base_url), said.append) is False
    assert said == []


def test_a_server_that_is_not_there_is_ignored() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    assert template_supports_tools(f"http://127.0.0.1:{port}/v1", timeout=1.0) is None


def test_a_silent_server_is_given_up_after_the_timeout() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)  # accepts the connection, never answers
        port = sock.getsockname()[1]
        assert template_supports_tools(f"http://127.0.0.1:{port}/v1", timeout=0.2) is None


def test_other_providers_are_not_asked(props: PropsServer) -> None:
    props.body = json.dumps(GEMMA_PROPS).encode()
    said: list[str] = []

    assert not warn_if_tools_dropped(_resolved(props.base_url, compat="vllm"), said.append)
    assert not warn_if_tools_dropped(_resolved(props.base_url, kind="openai"), said.append)

    assert said == []
    assert props.requests == []


def test_llamacpp_requests_stop_at_chat_template_markers() -> None:
    settings = local_model_settings(_resolved("http://127.0.0.1:8080/v1"), timeout=None)
    assert settings is not None
    assert settings.stop == TEMPLATE_STOP_SEQUENCES
    assert {"<|im_end|>", "<end_of_turn>", "<|eot_id|>"} <= set(TEMPLATE_STOP_SEQUENCES)
    assert settings.timeout is None

    # an openai-compatible provider without a compat profile is served as llamacpp
    assert local_model_settings(_resolved("http://h/v1", compat=None), timeout=None) is not None


def test_other_providers_get_only_the_timeout() -> None:
    assert (
        local_model_settings(_resolved(None, kind="anthropic", compat=None), timeout=None) is None
    )
    settings = local_model_settings(_resolved("http://h/v1", compat="ollama"), timeout=12.0)
    assert settings is not None
    assert (settings.timeout, settings.stop) == (12.0, None)


def test_a_cut_off_answer_has_its_own_exit_status() -> None:
    cut = TruncatedResponseError("the response reached the output token limit", provider="llamacpp")

    assert exit_for(cut) == ExitCode.TRUNCATED == 7
    assert exit_for(ProviderError("server error", provider="llamacpp")) == ExitCode.PROVIDER


def test_the_docstring_examples_run() -> None:
    result = doctest.testmod(local_server, raise_on_error=False)
    assert result.attempted >= 3
    assert result.failed == 0
