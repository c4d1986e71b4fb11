"""Build an :class:`AnthropicProvider` that replays a recorded cassette (for users' tests and
end-to-end tests); no network is touched.

Example:
    >>> from robota.core.testing.cassette import Cassette
    >>> provider = replay_provider(Cassette(path=__import__("pathlib").Path("x.yaml"),
    ...                                     interactions=[]))
    >>> provider.name
    'anthropic'
"""

from __future__ import annotations

from typing import Any

import httpx
from robota.core.testing.cassette import Cassette
from robota.providers.anthropic._provider import AnthropicProvider

__all__ = ["replay_provider"]


def replay_provider(cassette: Cassette, **kwargs: Any) -> AnthropicProvider:
    """An :class:`AnthropicProvider` whose HTTP traffic is served by ``cassette``.

    Requests are matched on method and path in recorded order (see
    :meth:`Cassette.transport`); a request with nothing left to serve raises
    ``CassetteMissError``. ``kwargs`` go to :class:`AnthropicProvider` (``api_key`` defaults
    to a placeholder).
    """
    kwargs.setdefault("api_key", "replay-key")
    client = httpx.AsyncClient(transport=cassette.transport())
    return AnthropicProvider(http_client=client, **kwargs)
