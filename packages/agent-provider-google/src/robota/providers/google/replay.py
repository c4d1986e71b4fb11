"""Build a :class:`GoogleProvider` over a recorded cassette (for users' tests and CLI tests).

Example:
    >>> from pathlib import Path
    >>> from robota.core.testing.cassette import Cassette
    >>> provider = provider_for_cassette(Cassette(path=Path("x.yaml"), interactions=[]))
    >>> provider.name
    'google'
"""

from __future__ import annotations

import httpx
from robota.core.testing.cassette import Cassette
from robota.providers.google._provider import GoogleProvider, VertexTarget

__all__ = ["provider_for_cassette"]


def provider_for_cassette(
    cassette: Cassette,
    *,
    vertex: VertexTarget | None = None,
    include_thoughts: bool = True,
    streaming: bool | None = None,
) -> GoogleProvider:
    """A provider whose HTTP traffic is served by ``cassette`` (no network).

    Interactions are matched by method and path in recorded order; a request with no matching
    interaction left raises ``CassetteMissError``. The API key is a placeholder.

    Args:
        cassette: The loaded cassette.
        vertex: Replay Vertex AI traffic (``*-aiplatform.googleapis.com``) instead.
        include_thoughts: Passed to :class:`GoogleProvider`.
        streaming: Use ``streamGenerateContent`` for :meth:`GoogleProvider.stream`; None picks it
            when every model call in the cassette was recorded on ``streamGenerateContent``
            (by the recorded path: a stream that failed has a JSON error body, not SSE).
    """
    if streaming is None:
        calls = [
            i
            for i in cassette.interactions
            if i.path.endswith((":streamGenerateContent", ":generateContent"))
        ]
        streaming = bool(calls) and all(i.path.endswith(":streamGenerateContent") for i in calls)
    client = httpx.AsyncClient(transport=cassette.transport())
    return GoogleProvider(
        api_key="replay-key",
        http_client=client,
        vertex=vertex,
        include_thoughts=include_thoughts,
        streaming=streaming,
    )
