"""Where an :class:`~robota.providers.anthropic.AnthropicProvider` sends requests and what follows
from it (issue #14; seed 000, "Structured Output Contract" — endpoint provenance is a fact apart
from the capability table; issue #13 — a credential never follows an endpoint the caller chose).

- **Anthropic's own endpoint** (``https://api.anthropic.com``): the API key is ``api_key`` or
  else ``ANTHROPIC_API_KEY``; with neither, construction fails with
  :class:`~robota.core.errors.ConfigurationError` (a request could only fail with 401). The model
  table's capabilities are Anthropic's stated guarantees and apply.
- **A custom base URL** (a gateway, a proxy, a compatible server): only an explicit ``api_key``
  is sent — ``ANTHROPIC_API_KEY`` is *not* read, so the user's key never follows a URL someone
  else chose (use :meth:`AnthropicProvider.from_env` to pair ``ANTHROPIC_BASE_URL`` with it).
  Without a key no credential header at all is sent. Model facts known by id (context window,
  maximum output) still apply; the capabilities Anthropic's endpoint guarantees (native structured
  output, hosted tools, thinking, media, tool calling) are reported unknown, never false.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import httpx
import httpx2
from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.wire import is_vendor_url, resolve_api_key
from robota.providers.anthropic._transport import as_httpx2_client

import anthropic

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_BASE_URL",
    "build_client",
    "is_anthropic_endpoint",
    "model_facts_only",
    "resolve_key",
]

DEFAULT_BASE_URL = "https://api.anthropic.com"
"""Anthropic's own API root (https://docs.anthropic.com/en/api/overview)."""

API_KEY_ENV = ("ANTHROPIC_API_KEY",)
"""Environment variables read for the key of Anthropic's own endpoint, in order."""

_ADAPTER_FACTS = ModelCapabilities(json_mode=False, unsupported_settings=frozenset({"seed"}))
"""What holds on any endpoint because this adapter's wire format has no field for it."""

_PLACEHOLDER_KEY = "robota-no-key"  # never sent: replaced by None right after construction


def is_anthropic_endpoint(base_url: str) -> bool:
    """True when ``base_url`` is Anthropic's own API root (``https://api.anthropic.com``, with
    or without a trailing slash); anything else is a custom endpoint.

    Example:
        >>> is_anthropic_endpoint("https://api.anthropic.com/")
        True
        >>> is_anthropic_endpoint("https://gateway.example/anthropic")
        False
    """
    return is_vendor_url(base_url, lambda host: host == "api.anthropic.com", root_only=True)


def resolve_key(
    api_key: str | None,
    *,
    base_url: str,
    provider: str,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The key to send: ``api_key``; else, for Anthropic's own endpoint only,
    ``ANTHROPIC_API_KEY``; else None (a custom endpoint may need no key).

    Raises:
        ConfigurationError: when no key is found and ``base_url`` is Anthropic's own endpoint.
    """
    vendor = is_anthropic_endpoint(base_url)
    return resolve_api_key(
        api_key,
        provider=provider,
        env=API_KEY_ENV,
        vendor_endpoint=vendor,
        environ=environ,
    )


def build_client(
    *,
    api_key: str | None,
    base_url: str,
    http_client: httpx.AsyncClient | httpx2.AsyncClient | None,
    default_headers: Mapping[str, str] | None,
) -> anthropic.AsyncAnthropic:
    """The SDK client: ``max_retries=0``, the given endpoint, and exactly the caller's headers.

    The SDK reads ``ANTHROPIC_CUSTOM_HEADERS`` at construction and, without an explicit key,
    discovers credentials (environment, profile files); both are undone here. With ``api_key``
    None no ``Authorization``/``x-api-key`` header is sent (unless ``default_headers`` has one).
    """
    client = anthropic.AsyncAnthropic(
        api_key=api_key if api_key is not None else _PLACEHOLDER_KEY,
        base_url=base_url,
        http_client=as_httpx2_client(http_client) if http_client is not None else None,
        max_retries=0,
    )
    headers: dict[str, str | anthropic.Omit] = {}
    if api_key is None:
        client.api_key = None
        headers.update({"Authorization": anthropic.omit, "X-Api-Key": anthropic.omit})
    headers.update(default_headers or {})
    setattr(client, "_custom_headers", headers)  # noqa: B010
    return client


def model_facts_only(info: ModelInfo) -> ModelInfo:
    """``info`` as known for a custom endpoint: the context window and maximum output of the
    model id stay; the capabilities Anthropic's endpoint guarantees become unknown (None), apart
    from what this adapter's wire format itself rules out (JSON mode, ``seed``)."""
    return replace(
        info,
        capabilities=_ADAPTER_FACTS,
        source=f"{info.source}; custom endpoint: model facts only, capabilities not vouched for",
    )
