"""Hosted web search for ``--web-search`` and ``/web-search``: whether the provider and model
run it, asked before any request (``docs/guides/hosted-tools.md``, "Which model offers what").

The model's stated capabilities answer first (:func:`~robota.core.capabilities.
check_hosted_tools`). A Chat Completions endpoint (``openai-chat``, ``openai-compatible``) states
nothing for a model outside OpenAI's table, yet it can only carry web search as
``web_search_options`` for a search model (its adapter refuses anything else before sending);
the CLI applies that rule up front, so a local server with ``--web-search`` stops with exit 3
before the first request rather than at the first turn.
"""

from __future__ import annotations

from collections.abc import Iterable

from robota.core.capabilities import HostedTool, ModelCapabilities, check_hosted_tools
from robota.core.errors import UnsupportedCapabilityError
from robota.core.provider import Provider

__all__ = ["WEB_SEARCH", "offered_hosted_tools", "require_hosted_tools"]

WEB_SEARCH = frozenset({HostedTool.WEB_SEARCH})
"""What ``--web-search`` and ``/web-search on`` ask for."""

_CHAT_COMPLETIONS = ("openai-chat", "openai-compatible")


def offered_hosted_tools(
    provider_type: str, provider: Provider, model: str
) -> frozenset[HostedTool] | None:
    """The hosted tools ``model`` runs on ``provider``, or None when nobody states it (the
    request then carries them and the vendor decides).

    Args:
        provider_type: The settings profile's ``type`` (``anthropic``, ``openai``,
            ``openai-chat``, ``openai-compatible``, ``google``).
        provider: The provider instance.
        model: The model id.

    Example:
        >>> from robota.providers.openai import OpenAIChatProvider
        >>> local = OpenAIChatProvider(None, base_url="http://127.0.0.1:8080/v1",
        ...                            profile="llamacpp")
        >>> offered_hosted_tools("openai-compatible", local, "local")
        frozenset()
    """
    stated = provider.capabilities(model).hosted_tools
    if stated is None and provider_type in _CHAT_COMPLETIONS:
        # the Chat Completions adapter's own rule: web search only, on a search model
        return WEB_SEARCH if "search" in model else frozenset()
    return stated


def require_hosted_tools(
    provider_type: str,
    provider: Provider,
    model: str,
    tools: Iterable[HostedTool],
    *,
    asked_by: str,
) -> frozenset[HostedTool]:
    """``tools`` as a set, after checking that ``model`` offers them.

    Args:
        provider_type: The settings profile's ``type``.
        provider: The provider instance.
        model: The model id.
        tools: The hosted tools wanted (empty: nothing to check).
        asked_by: What asked, named first in the error (``--web-search``, ``/web-search``).

    Raises:
        UnsupportedCapabilityError: (exit 3) naming what asked, the tools, the provider, the
            model and what it offers; nothing was sent.
    """
    wanted = frozenset(tools)
    if not wanted:
        return wanted
    offered = offered_hosted_tools(provider_type, provider, model)
    try:
        check_hosted_tools(
            ModelCapabilities(hosted_tools=offered), wanted, provider=provider.name, model=model
        )
    except UnsupportedCapabilityError as exc:
        raise UnsupportedCapabilityError(
            f"{asked_by}: {exc}; the hosted tools guide lists the models that offer it"
        ) from exc
    return wanted
