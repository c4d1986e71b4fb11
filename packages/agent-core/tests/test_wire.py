"""The shared wire rules: JSON object bodies, context-overflow wording, the API key rule."""

from __future__ import annotations

import doctest

import pytest
import robota.core.wire as wire
from hypothesis import given
from hypothesis import strategies as st
from robota.core.errors import ConfigurationError, MalformedResponseError
from robota.core.wire import decode_json_object, is_context_overflow, resolve_api_key


def test_docstring_examples_run() -> None:
    result = doctest.testmod(wire, raise_on_error=False)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"  \n",
        b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>",
        b"[1, 2]",
        b'"text"',
        b"null",
        b'{"cut": ',
        b"\xff\xfe\xfd",
        b"[" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    ],
    ids=[
        "empty",
        "blank",
        "html",
        "array",
        "string",
        "null",
        "cut",
        "bad-utf8",
        "deep-array",
        "deep-object",
    ],
)
def test_a_body_that_is_not_one_json_object_is_a_typed_error(body: bytes) -> None:
    with pytest.raises(MalformedResponseError) as caught:
        decode_json_object(body, provider="p", api="a", status=200)
    assert caught.value.missing == "JSON object body"
    assert (caught.value.provider, caught.value.api, caught.value.status) == ("p", "a", 200)
    assert caught.value.recoverable


@given(st.binary(max_size=200))
def test_any_bytes_give_an_object_or_the_typed_error(body: bytes) -> None:
    try:
        value = decode_json_object(body, provider="p", api="a")
    except MalformedResponseError:
        return
    assert isinstance(value, dict)


@pytest.mark.parametrize(
    "text",
    [
        # llama.cpp server
        "the request exceeds the available context size, try increasing it",
        "exceed_context_size_error",
        # vLLM
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
        "The decoder prompt (length 9000) is longer than the maximum model length of 8192.",
        # Ollama
        "prompt too long; exceeded max context length by 12 tokens",
        # OpenAI
        "context_length_exceeded",
        # Anthropic
        "prompt is too long: 210000 tokens > 200000 maximum",
        # Gemini and Vertex
        "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).",
        "The input token count exceeds the maximum number of tokens allowed 1048576.",
    ],
)
def test_context_overflow_wordings_are_recognized(text: str) -> None:
    assert is_context_overflow(text)
    assert is_context_overflow(None, 400, text)


@pytest.mark.parametrize(
    "text",
    ["temperature must be at most 2", "invalid_request_error", "model not found", "rate limited"],
)
def test_other_errors_are_not_overflow(text: str) -> None:
    assert not is_context_overflow(text)


def test_the_api_key_rule() -> None:
    env = ["VENDOR_API_KEY", "VENDOR_OTHER_KEY"]
    assert resolve_api_key("k", vendor_endpoint=True, environ={}, provider="vendor", env=env) == "k"
    assert (
        resolve_api_key(
            None,
            vendor_endpoint=True,
            environ={"VENDOR_OTHER_KEY": "o"},
            provider="vendor",
            env=env,
        )
        == "o"
    )
    assert (
        resolve_api_key(None, vendor_endpoint=False, environ={}, provider="vendor", env=env) is None
    )
    with pytest.raises(ConfigurationError, match="VENDOR_API_KEY or VENDOR_OTHER_KEY"):
        resolve_api_key(
            None, vendor_endpoint=True, environ={"VENDOR_API_KEY": ""}, provider="vendor", env=env
        )


def test_a_custom_endpoint_never_reads_the_users_key_unless_asked() -> None:
    environ = {"VENDOR_API_KEY": "sk-user"}
    env = ["VENDOR_API_KEY"]
    custom = resolve_api_key(None, provider="v", env=env, vendor_endpoint=False, environ=environ)
    paired = resolve_api_key(
        None, provider="v", env=env, vendor_endpoint=False, environ=environ, read_env=True
    )
    assert (custom, paired) == (None, "sk-user")
