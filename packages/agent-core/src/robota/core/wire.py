"""Rules every provider adapter shares at its wire boundary (seed 002, "Model contract",
"Providers and model adapters"; seed 000, "Error Taxonomy").

A response is an answer only when it **completed** by its vendor's rules; everything else is a
typed error. The vendor rules differ (``[DONE]`` and a ``finish_reason`` for Chat Completions,
``message_stop`` for Anthropic, ``response.completed`` for Responses, a ``finishReason`` for
Gemini) and live in each adapter; what is shared lives here:

- :func:`decode_json_object`: a body that must be a JSON object (an empty body, an HTML page, a
  JSON array are :class:`~robota.core.errors.MalformedResponseError`, never a ``JSONDecodeError``).
- :func:`malformed`: the one way to build the error for a response that lacks a part.
- :func:`is_context_overflow`: the context-overflow wording of compatible servers (llama.cpp,
  vLLM, Ollama, LM Studio) and of the vendors, for classifying a 400 as
  :class:`~robota.core.errors.ContextWindowExceededError`.
- :func:`is_vendor_url`: whether a base URL is a vendor's own endpoint (HTTPS, default port,
  no credentials in the URL) — endpoint provenance, a fact apart from the capability table.
- :func:`resolve_api_key`: one constructor rule for the three vendors (explicit key, else the
  vendor's environment variable — read for the vendor's own endpoint only, so a user's key never
  follows a URL someone else chose — else a typed error when the endpoint is the vendor's own).

Example:
    >>> decode_json_object(b'{"ok": true}', provider="p", api="a")
    {'ok': True}
    >>> decode_json_object(b"<html>502</html>", provider="p", api="a").keys()
    Traceback (most recent call last):
    ...
    robota.core.errors.MalformedResponseError: p a: expected a JSON object body, got an HTML page ('<html>502</html>')
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from robota.core.errors import ConfigurationError, MalformedResponseError

__all__ = [
    "SNIPPET_LIMIT",
    "decode_json_object",
    "describe_body",
    "is_context_overflow",
    "is_vendor_url",
    "malformed",
    "resolve_api_key",
]

SNIPPET_LIMIT = 200
"""Most characters of an unexpected body quoted in an error message."""

_OVERFLOW = re.compile(
    "|".join(
        (
            r"exceed_context_size_error",  # llama.cpp server error type
            r"exceeds? the available context size",  # llama.cpp message
            r"context[_ ]length[_ ]exceeded",  # OpenAI code, several gateways
            r"maximum context length",  # OpenAI, vLLM ("This model's maximum context length")
            r"max(imum)?[_ ]context[_ ]length",  # vLLM / Ollama variants
            r"prompt is too long",  # Anthropic
            r"prompt too long",  # Ollama
            r"input is too long",  # Bedrock-style gateways
            r"too many tokens",  # generic gateways
            r"context window (is )?(exceeded|too small)",  # LM Studio and others
            r"exceeds the context window",
            r"input token count.*exceeds the maximum",  # Gemini, Vertex
            r"is longer than the model'?s context length",  # vLLM
            r"is longer than the maximum model length",  # vLLM ("The decoder prompt (length N)")
            r"maximum model length",  # vLLM engine wording
        )
    ),
    re.IGNORECASE,
)


def describe_body(body: bytes | str) -> str:
    """A short description of an unexpected body for an error message: ``an empty body``,
    ``an HTML page ('<html>…')``, or the body's first :data:`SNIPPET_LIMIT` characters."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    stripped = text.strip()
    if not stripped:
        return "an empty body"
    snippet = stripped[:SNIPPET_LIMIT]
    if stripped[:1] == "<":
        return f"an HTML page ({snippet!r})"
    return f"{snippet!r}"


def malformed(
    provider: str,
    api: str,
    missing: str,
    *,
    detail: str = "",
    status: int | None = None,
    request_id: str | None = None,
) -> MalformedResponseError:
    """The error for a response that lacks ``missing`` (say what, in the vendor's own terms).

    Example:
        >>> malformed("openai", "chat.completions", "[DONE] after the last chunk").missing
        '[DONE] after the last chunk'
    """
    message = f"{provider} {api}: the response ended without {missing}"
    if detail:
        message += f" ({detail})"
    return MalformedResponseError(
        message,
        provider=provider,
        api=api,
        missing=missing,
        status=status,
        request_id=request_id,
    )


def decode_json_object(
    body: bytes | str,
    *,
    provider: str,
    api: str,
    status: int | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    """Decode a body that must be one JSON object.

    Raises:
        MalformedResponseError: for an empty body, an HTML page, text that is not JSON, or JSON
            that is not an object (``missing="JSON object body"``).
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        value = json.loads(text) if text.strip() else None
    except (ValueError, RecursionError):  # RecursionError: JSON nested beyond the parser
        value = None
    if isinstance(value, dict):
        return value  # pyright: ignore[reportUnknownVariableType]
    raise MalformedResponseError(
        f"{provider} {api}: expected a JSON object body, got {describe_body(text)}",
        provider=provider,
        api=api,
        missing="JSON object body",
        status=status,
        request_id=request_id,
    )


def is_context_overflow(*texts: object) -> bool:
    """True when any of ``texts`` (an error message, type or code) uses a known context-overflow
    wording of a vendor or compatible server.

    Example:
        >>> is_context_overflow("request (40960 tokens) exceeds the available context size")
        True
        >>> is_context_overflow("invalid_request_error", "temperature must be <= 2")
        False
    """
    return any(isinstance(t, str) and _OVERFLOW.search(t) is not None for t in texts)


def is_vendor_url(base_url: str, host: Callable[[str], bool], *, root_only: bool = False) -> bool:
    """True when ``base_url`` is a vendor's own endpoint: ``https``, a host ``host`` accepts, the
    default port, no user or password in the URL (and, with ``root_only``, no path or query).

    Example:
        >>> openai_host = lambda h: h == "api.openai.com" or h.endswith(".api.openai.com")
        >>> is_vendor_url("https://api.openai.com/v1", openai_host)
        True
        >>> [is_vendor_url(u, openai_host) for u in ("http://api.openai.com/v1",
        ...     "https://api.openai.com.evil.test/v1", "https://u:p@api.openai.com/v1",
        ...     "https://api.openai.com:8443/v1", "https://api.openai.com:bad/v1")]
        [False, False, False, False, False]
    """
    parts = urlsplit(base_url.strip())
    try:
        port = parts.port
    except ValueError:
        return False
    return (
        parts.scheme == "https"
        and host(parts.hostname or "")
        and port in (None, 443)
        and parts.username is None
        and parts.password is None
        and not (root_only and (parts.path.strip("/") or parts.query))
    )


def resolve_api_key(
    api_key: str | None,
    *,
    provider: str,
    env: Sequence[str],
    vendor_endpoint: bool,
    environ: Mapping[str, str] | None = None,
    read_env: bool | None = None,
) -> str | None:
    """The API key a provider uses: ``api_key`` when given, else the first non-empty variable of
    ``env`` (the vendor's documented names) — read only when ``read_env`` (default: only for the
    vendor's own endpoint, so the user's key never follows a URL someone else chose; a host that
    pairs its own base-URL variable with the key passes ``read_env=True``) — else None for a
    custom endpoint (a local server or gateway may need none).

    Raises:
        ConfigurationError: when there is no key and the endpoint is the vendor's own (a request
            without credentials could only fail, so it fails at construction, naming the
            variables that were read).

    Example:
        >>> resolve_api_key(None, provider="openai", env=["OPENAI_API_KEY"],
        ...                 vendor_endpoint=False, environ={"OPENAI_API_KEY": "sk-1"})
        >>> resolve_api_key(None, provider="openai", env=["OPENAI_API_KEY"],
        ...                 vendor_endpoint=True, environ={"OPENAI_API_KEY": "sk-1"})
        'sk-1'
    """
    if api_key:
        return api_key
    source = os.environ if environ is None else environ
    if not (vendor_endpoint if read_env is None else read_env):
        return None
    for name in env:
        value = source.get(name)
        if value:
            return value
    if vendor_endpoint:
        names = " or ".join(env)
        raise ConfigurationError(
            f"{provider}: no API key: pass api_key= or set {names} "
            "(a custom base_url may run without one)"
        )
    return None
