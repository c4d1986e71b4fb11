"""Where a :class:`~robota.providers.google.GoogleProvider` sends requests and what follows from
it (issue #14; seed 000, "Structured Output Contract" — endpoint provenance is a fact apart from
the capability table).

- **Google's own endpoint** (the Gemini API ``https://generativelanguage.googleapis.com/``, or a
  Vertex AI endpoint ``https://[{location}-]aiplatform.googleapis.com/``): the Gemini API key is
  ``api_key``, else ``GEMINI_API_KEY``, else ``GOOGLE_API_KEY``; with none (and no Vertex
  target) construction fails with :class:`~robota.core.errors.ConfigurationError` — a request
  could only fail with 401/403. The model table's capabilities are Google's stated guarantees and
  apply.
- **A custom base URL** (a gateway, a proxy, a Gemini-compatible server): only an explicit
  ``api_key`` is sent — the environment variables are *not* read, so a user's key never follows a
  URL someone else chose (``GoogleProvider.from_env`` pairs them on purpose). Without a key no
  ``x-goog-api-key`` header is sent at all. Model facts known by id (context window, maximum
  output, the thinking-control table used to translate reasoning effort) still apply; the
  capabilities Google's endpoint guarantees (function calling, native structured output, JSON
  mode, thinking, media, hosted tools) are reported unknown (None), never false.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from robota.core.capabilities import UNKNOWN_CAPABILITIES, ModelInfo
from robota.core.wire import is_vendor_url, resolve_api_key

from google import genai
from google.genai import types

__all__ = [
    "API_KEY_ENV",
    "GEMINI_BASE_URL",
    "gemini_client",
    "is_google_endpoint",
    "model_facts_only",
    "resolve_key",
]

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/"
"""The Gemini Developer API endpoint (https://ai.google.dev/api, read 2026-11-30)."""

API_KEY_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
"""Environment variables read for the key of Google's own endpoint, in order
(https://ai.google.dev/gemini-api/docs/api-key, read 2026-11-30)."""

_KEY_HEADER = "x-goog-api-key"
_PLACEHOLDER_KEY = "robota-no-key"  # the SDK insists on a key; its header is removed at once


def _google_host(host: str) -> bool:
    return (
        host == "generativelanguage.googleapis.com"
        or host == "aiplatform.googleapis.com"
        or (host.endswith("-aiplatform.googleapis.com") and "." not in host.split("-aiplatform")[0])
    )


def is_google_endpoint(base_url: str) -> bool:
    """True when ``base_url`` is Google's own API root (the Gemini API, or a global or regional
    Vertex AI endpoint) over HTTPS on the default port; anything else is a custom endpoint.

    Example:
        >>> is_google_endpoint("https://generativelanguage.googleapis.com/")
        True
        >>> is_google_endpoint("https://us-central1-aiplatform.googleapis.com")
        True
        >>> is_google_endpoint("https://gateway.example/google")
        False
    """
    return is_vendor_url(base_url, _google_host, root_only=True)


def resolve_key(
    api_key: str | None,
    *,
    base_url: str,
    vertex: bool,
    provider: str,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The Gemini API key to send: ``api_key``; else, for Google's own endpoint only,
    ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY``; else None.

    With a Vertex target the key is not used (its ``credentials`` authenticate), so nothing is
    read and nothing is required.

    Raises:
        ConfigurationError: when no key is found, there is no Vertex target, and ``base_url`` is
            Google's own endpoint.
    """
    if vertex:
        return api_key or None
    vendor = is_google_endpoint(base_url)
    return resolve_api_key(
        api_key,
        provider=provider,
        env=API_KEY_ENV,
        vendor_endpoint=vendor,
        environ=environ,
    )


def gemini_client(*, api_key: str | None, options: types.HttpOptions) -> genai.Client:
    """A Gemini Developer API client of the SDK that sends exactly ``api_key``.

    The SDK refuses to build without a key and would otherwise read ``GOOGLE_API_KEY`` itself;
    with ``api_key`` None it gets a placeholder whose ``x-goog-api-key`` header is removed right
    away, so no credential header is sent (a keyless gateway or local server).
    """
    client = genai.Client(vertexai=False, api_key=api_key or _PLACEHOLDER_KEY, http_options=options)
    if api_key is None:
        headers = client._api_client._http_options.headers
        if headers is not None:
            headers.pop(_KEY_HEADER, None)
    return client


def model_facts_only(info: ModelInfo) -> ModelInfo:
    """``info`` as known for a custom endpoint: the context window and maximum output of the
    model id stay; the capabilities Google's endpoint guarantees become unknown (None).

    Example:
        >>> from robota.core.capabilities import ModelCapabilities
        >>> facts = model_facts_only(ModelInfo(provider="google", model="m", context_window=8,
        ...     capabilities=ModelCapabilities(native_structured_output=True)))
        >>> facts.context_window, facts.capabilities.native_structured_output
        (8, None)
    """
    return replace(
        info,
        capabilities=UNKNOWN_CAPABILITIES,
        source=f"{info.source}; custom endpoint: model facts only, capabilities not vouched for",
    )
