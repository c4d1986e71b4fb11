"""Where an OpenAI provider sends its requests, which key it sends, and what the endpoint lets it
claim (seed 000, "Structured Output Contract": endpoint provenance is a fact apart from the
capability table; "Provider Capabilities": silence is not denial).

- **Base URL**: the ``base_url`` argument; else ``OPENAI_BASE_URL`` when set; else OpenAI's own
  ``https://api.openai.com/v1``.
- **API key**: the ``api_key`` argument; else ``OPENAI_API_KEY`` — read only when the endpoint is
  OpenAI's own or the base URL itself came from ``OPENAI_BASE_URL`` (the user paired the two), so
  the user's key never follows a URL someone else chose. OpenAI's endpoint without a key is a
  :class:`~robota.core.errors.ConfigurationError` at construction (a request could only fail with
  401). A custom endpoint without a key gets no ``Authorization`` header at all.
- **Vendor endpoint**: ``https`` on ``api.openai.com`` or a regional ``*.api.openai.com`` host.
  Azure OpenAI, OpenRouter, a LiteLLM proxy or a local server are custom endpoints.
- **Capabilities on a custom endpoint**: the model table's *model facts* still apply by model id
  (context window, maximum output, settings the model rejects such as ``temperature`` on
  reasoning models, whether it reasons); the guarantees OpenAI's *endpoint* makes (native
  structured output, JSON mode, strict tool schemas, hosted tools, parallel tool calls, tool
  calling, media kinds) are reported unknown (``None``), unless a
  :class:`~robota.providers.openai.CompatProfile` other than ``openai`` states them for that
  server.
- **No headers from the environment**: the SDK would add every ``Name: value`` line of
  ``OPENAI_CUSTOM_HEADERS`` to every request — usually a gateway's credentials, which would then
  follow any base URL, custom or not. They are dropped, for every endpoint (as the Anthropic
  provider drops ``ANTHROPIC_CUSTOM_HEADERS``); pass headers per call with
  ``ModelSettings.extra_headers``, or build your own ``openai.AsyncOpenAI`` and pass ``client``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.provider import EndpointProvenance
from robota.core.wire import is_vendor_url, resolve_api_key

import openai

if TYPE_CHECKING:
    import httpx

__all__ = [
    "API_KEY_ENV",
    "BASE_URL_ENV",
    "OPENAI_BASE_URL",
    "Connection",
    "connect",
    "is_openai_endpoint",
    "model_facts_only",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""OpenAI's public API base URL."""

API_KEY_ENV = "OPENAI_API_KEY"
"""The environment variable read for the key (see the module docstring for when)."""

BASE_URL_ENV = "OPENAI_BASE_URL"
"""The environment variable read for the base URL when none is passed."""

_PLACEHOLDER_KEY = "robota-no-key"
"""Satisfies the SDK's credential check; never sent (every request omits ``Authorization``)."""

NO_AUTH: Mapping[str, Any] = {"Authorization": openai.Omit()}
"""Per-request headers that make the SDK send no ``Authorization`` header (the SDK honours an
omitted header only per request, see ``openai/lib/_client_auth.py``)."""


def is_openai_endpoint(base_url: str) -> bool:
    """True when ``base_url`` is OpenAI's own API (``https`` on ``api.openai.com`` or a regional
    ``<region>.api.openai.com``, default port, no credentials in the URL).

    Example:
        >>> is_openai_endpoint("https://api.openai.com/v1"), is_openai_endpoint(
        ...     "https://eu.api.openai.com/v1")
        (True, True)
        >>> is_openai_endpoint("http://api.openai.com/v1"), is_openai_endpoint(
        ...     "https://api.openai.com.evil.test/v1")
        (False, False)
    """
    return is_vendor_url(
        base_url, lambda host: host == "api.openai.com" or host.endswith(".api.openai.com")
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class Connection:
    """A built SDK client and the facts about its endpoint.

    Attributes:
        client: The ``openai.AsyncOpenAI`` client (``max_retries=0``).
        endpoint: Base URL and whether it is OpenAI's own.
        sends_key: False when no key is sent (every request omits ``Authorization``).
    """

    client: openai.AsyncOpenAI
    endpoint: EndpointProvenance
    sends_key: bool


def connect(
    api_key: str | None,
    *,
    base_url: str | None,
    http_client: httpx.AsyncClient | None,
    organization: str | None,
    project: str | None,
    client: openai.AsyncOpenAI | None,
    provider: str,
    environ: Mapping[str, str] | None = None,
) -> Connection:
    """Resolve the base URL and key (module docstring) and build the SDK client.

    A ready ``client`` is used as given (its own key and base URL; nothing is resolved).
    Otherwise the host's values are the only configuration: the organization / project the SDK
    would read from ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID`` are reset to the host's, the
    headers it would read from ``OPENAI_CUSTOM_HEADERS`` are dropped, and without a key no
    ``Authorization`` header is sent.

    Raises:
        ConfigurationError: no key for OpenAI's own endpoint.
    """
    if client is not None:
        url = str(client.base_url)
        return Connection(
            client=client,
            endpoint=EndpointProvenance(base_url=url, vendor=is_openai_endpoint(url)),
            sends_key=True,
        )
    source = os.environ if environ is None else environ
    from_env = base_url is None and bool(source.get(BASE_URL_ENV))
    url = base_url or source.get(BASE_URL_ENV) or OPENAI_BASE_URL
    vendor = is_openai_endpoint(url)
    key = resolve_api_key(
        api_key,
        provider=provider,
        env=(API_KEY_ENV,),
        vendor_endpoint=vendor,
        read_env=vendor or from_env,
        environ=source,
    )
    built = openai.AsyncOpenAI(
        api_key=key or _PLACEHOLDER_KEY,
        base_url=url,
        http_client=cast(Any, http_client),
        max_retries=0,
        organization=organization or "",
        project=project or "",
        webhook_secret="",
    )
    built.organization = organization
    built.project = project
    _drop_environment_headers(built)
    return Connection(
        client=built,
        endpoint=EndpointProvenance(base_url=url, vendor=vendor),
        sends_key=key is not None,
    )


def _drop_environment_headers(client: openai.AsyncOpenAI) -> None:
    """Forget the headers the SDK read from ``OPENAI_CUSTOM_HEADERS`` (module docstring).

    :func:`connect` passes no ``default_headers``, so every custom header the new client holds
    came from that variable; the SDK offers no switch for it, hence its two private fields
    (the package's tests check that nothing from the variable is sent).
    """
    # SDK internals: _custom_headers (headers added to every request) and
    # _ambient_authorizations (the Authorization values taken from the variable)
    client._custom_headers = {}  # pyright: ignore[reportPrivateUsage]
    if hasattr(client, "_ambient_authorizations"):
        client._ambient_authorizations = frozenset()  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue]


def model_facts_only(info: ModelInfo, endpoint: ModelCapabilities | None = None) -> ModelInfo:
    """``info`` as known for a custom endpoint: context window, maximum output, the settings the
    model rejects and whether it reasons stay; the endpoint guarantees come from ``endpoint``
    (what a compatible-server profile states) or are unknown (``None``).

    Example:
        >>> from robota.providers.openai._models import openai_model_info
        >>> facts = model_facts_only(openai_model_info("o3"))
        >>> facts.context_window, facts.capabilities.native_structured_output
        (200000, None)
        >>> sorted(facts.capabilities.unsupported_settings)
        ['temperature', 'top_p']
    """
    stated = endpoint if endpoint is not None else ModelCapabilities()
    facts = info.capabilities
    return replace(
        info,
        capabilities=replace(
            stated,
            thinking=facts.thinking,
            unsupported_settings=facts.unsupported_settings | stated.unsupported_settings,
        ),
        source=f"{info.source} (model facts only: custom endpoint)",
    )
