"""Build an OpenAI provider that replays a recorded cassette (for tests; no network).

Example:
    >>> from pathlib import Path
    >>> from robota.core.testing.cassette import Cassette, Interaction
    >>> recorded = Interaction(method="POST", uri="https://api.openai.com/v1/responses",
    ...                        request_body=None, status=200, headers={}, body=b"{}")
    >>> provider = replay_provider(Cassette(path=Path("x.yaml"), interactions=[recorded]))
    >>> type(provider).__name__
    'OpenAIResponsesProvider'
"""

from __future__ import annotations

from typing import Literal

import httpx
from robota.core.testing.cassette import Cassette
from robota.providers.openai._compat import CompatProfile
from robota.providers.openai.chat import OpenAIChatProvider
from robota.providers.openai.responses import OpenAIResponsesProvider

__all__ = ["REPLAY_KEY", "base_url_of", "replay_provider"]

REPLAY_KEY = "replay"
"""The key a replayed request carries by default (no recording checks it)."""

_SUFFIXES = ("/chat/completions", "/responses")


def base_url_of(uri: str) -> str | None:
    """The API base URL of a recorded ``.../chat/completions`` or ``.../responses`` URI.

    Example:
        >>> base_url_of("https://openrouter.ai/api/v1/chat/completions")
        'https://openrouter.ai/api/v1'
    """
    for suffix in _SUFFIXES:
        if uri.endswith(suffix):
            return uri[: -len(suffix)]
    return None


def replay_provider(
    cassette: Cassette,
    *,
    api: Literal["auto", "chat", "responses"] = "auto",
    base_url: str | None = None,
    profile: str | CompatProfile = "openai",
    name: str = "openai",
    store: bool | None = None,
    api_key: str | None = REPLAY_KEY,
) -> OpenAIChatProvider | OpenAIResponsesProvider:
    """A provider whose HTTP client serves ``cassette``'s recorded responses.

    Args:
        cassette: The recording (``robota.core.testing.cassette.load_cassette``).
        api: ``chat``, ``responses``, or ``auto`` (the surface of the first recorded model
            call).
        base_url: API base URL; default: taken from the first recorded model call.
        profile: Compatible-server profile for the chat surface.
        name: Provider name.
        store: Responses ``store`` flag.
        api_key: The key sent with each replayed request (recordings were scrubbed of theirs).
            The default :data:`REPLAY_KEY` satisfies the rule that OpenAI's own endpoint needs a
            key, without reading ``OPENAI_API_KEY``; None sends no ``Authorization`` header (a
            recording of a custom endpoint; OpenAI's endpoint then raises
            ``ConfigurationError`` unless ``OPENAI_API_KEY`` is set).

    The provider streams when the first recorded call is Server-Sent Events and makes buffered
    calls otherwise (``streaming=False``), so an agent replays either kind of recording. The base
    URL is always passed explicitly, so ``OPENAI_BASE_URL`` never redirects a replay.

    Raises:
        ValueError: when ``api``/``base_url`` are ``auto``/None and the cassette has no
            recorded model call.
    """
    calls = [i for i in cassette.interactions if base_url_of(i.uri) and i.method == "POST"]
    first = calls[0].uri if calls else None
    streaming = calls[0].is_stream if calls else True
    if (api == "auto" or base_url is None) and first is None:
        raise ValueError(f"{cassette.path}: no recorded chat/completions or responses call")
    chosen = api
    if chosen == "auto":
        assert first is not None
        chosen = "chat" if first.endswith("/chat/completions") else "responses"
    url = base_url or base_url_of(first or "") or ""
    client = httpx.AsyncClient(transport=cassette.transport())
    if chosen == "chat":
        return OpenAIChatProvider(
            api_key,
            base_url=url,
            http_client=client,
            profile=profile,
            name=name,
            streaming=streaming,
        )
    return OpenAIResponsesProvider(
        api_key,
        base_url=url,
        http_client=client,
        name=name,
        store=store,
        streaming=streaming,
    )
