"""Replay recorded HTTP traffic (vcrpy cassette format, version 1) through an ``httpx``
transport, so provider adapters are tested on real vendor responses without the network.

A cassette is a YAML document with ``interactions``: ``request`` (``method``, ``uri``, ...) and
``response`` (``status.code``, ``headers``, and ``parsed_body`` JSON or ``body.string`` raw text,
streamed Server-Sent Events verbatim). Replay matches on method and URL path — request bodies
differ between clients — and serves interactions in recorded order; a request with no remaining
matching interaction raises :class:`CassetteMissError`, which fails the test.

Reading a cassette needs PyYAML, the ``cassettes`` extra (``pip install
"robota-agent-core[cassettes]"``). It is imported on the first :func:`load_cassette` (which every
provider's ``replay_provider`` calls), so importing this module works without it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from robota.core.extras import require_extra

__all__ = ["Cassette", "CassetteMissError", "Interaction", "load_cassette"]

_DROPPED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class CassetteMissError(AssertionError):
    """A request had no matching recorded interaction left."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Interaction:
    """One recorded request/response pair.

    Attributes:
        method: HTTP method, upper case.
        uri: Full recorded URL.
        request_body: The recorded request JSON (``parsed_body``), or None.
        status: HTTP status code.
        headers: Response headers (first value of each), lower-case names.
        body: Response body bytes exactly as the client would read them.
        json: The response JSON when the body is JSON, else None.
    """

    method: str
    uri: str
    request_body: Any
    status: int
    headers: Mapping[str, str]
    body: bytes
    json: Any = None

    @property
    def host(self) -> str:
        """The recorded host name."""
        return urlsplit(self.uri).hostname or ""

    @property
    def path(self) -> str:
        """The recorded URL path."""
        return urlsplit(self.uri).path

    @property
    def is_stream(self) -> bool:
        """True when the response is Server-Sent Events."""
        return "text/event-stream" in self.headers.get("content-type", "")


@dataclass(kw_only=True, slots=True)
class Cassette:
    """Recorded interactions and a replaying transport.

    Attributes:
        path: Where the cassette was read from.
        interactions: Interactions in recorded order.
        served: How many interactions replay has served so far.
    """

    path: Path
    interactions: Sequence[Interaction]
    served: int = 0
    _used: set[int] = field(default_factory=set[int])

    def transport(self, *, match_host: bool = False) -> httpx.MockTransport:
        """An ``httpx.MockTransport`` that serves the interactions.

        Args:
            match_host: Also require the request host to equal the recorded host.
        """

        def handler(request: httpx.Request) -> httpx.Response:
            for index, interaction in enumerate(self.interactions):
                if index in self._used or interaction.method != request.method:
                    continue
                if interaction.path != request.url.path:
                    continue
                if match_host and interaction.host != request.url.host:
                    continue
                self._used.add(index)
                self.served += 1
                return httpx.Response(
                    interaction.status,
                    headers=dict(interaction.headers),
                    content=interaction.body,
                    request=request,
                )
            raise CassetteMissError(
                f"{self.path.name}: no recorded interaction left for {request.method} "
                f"{request.url.path}"
            )

        return httpx.MockTransport(handler)


def _response_body(response: Mapping[str, Any]) -> tuple[bytes, Any]:
    if "parsed_body" in response:
        parsed = response["parsed_body"]
        return json.dumps(parsed).encode(), parsed
    body = response.get("body", {})
    raw: Any = body.get("string", "") if isinstance(body, Mapping) else body
    data = raw.encode() if isinstance(raw, str) else bytes(raw or b"")
    try:
        return data, json.loads(data)
    except ValueError:
        return data, None


def load_cassette(path: str | Path) -> Cassette:
    """Read a vcrpy cassette file.

    Needs the ``cassettes`` extra (PyYAML): ``pip install "robota-agent-core[cassettes]"``.

    Raises:
        ValueError: when the file is not a cassette (no ``interactions`` list).
        MissingExtraError: PyYAML is not installed (the ``cassettes`` extra).
    """
    require_extra("yaml", distribution="robota-agent-core", extra="cassettes")
    import yaml

    file = Path(path)
    document = yaml.safe_load(file.read_text(encoding="utf-8"))
    if not isinstance(document, Mapping) or not isinstance(document.get("interactions"), list):
        raise ValueError(f"{file}: not a vcrpy cassette (no interactions list)")
    interactions: list[Interaction] = []
    for raw in document["interactions"]:
        request = raw["request"]
        response = raw["response"]
        body, parsed = _response_body(response)
        headers = {
            str(name).lower(): str(values[0] if isinstance(values, list) and values else values)
            for name, values in (response.get("headers") or {}).items()
            if str(name).lower() not in _DROPPED_HEADERS
        }
        if parsed is not None and "content-type" not in headers:
            headers["content-type"] = "application/json"
        interactions.append(
            Interaction(
                method=str(request["method"]).upper(),
                uri=str(request["uri"]),
                request_body=request.get("parsed_body"),
                status=int(response["status"]["code"]),
                headers=headers,
                body=body,
                json=parsed,
            )
        )
    return Cassette(path=file, interactions=interactions)
