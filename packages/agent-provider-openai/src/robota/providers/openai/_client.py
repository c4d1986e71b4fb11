"""Building the ``openai.AsyncOpenAI`` client from host-given values only."""

from __future__ import annotations

from typing import Any, cast

import httpx
from robota.core.provider import PayloadCallback, PayloadEvent

import openai

__all__ = ["OPENAI_BASE_URL", "PayloadRecorder", "make_client"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""OpenAI's public API base URL."""


def make_client(
    *,
    api_key: str | None,
    base_url: str,
    http_client: httpx.AsyncClient | None,
    organization: str | None,
    project: str | None,
) -> openai.AsyncOpenAI:
    """An SDK client with retries off (``max_retries=0``: retries belong to
    ``robota.core.retry.RetryingProvider``).

    The host's values are the only configuration: ``base_url`` is always passed, and the
    organization / project the SDK would otherwise read from ``OPENAI_ORG_ID`` /
    ``OPENAI_PROJECT_ID`` are reset to the host's values. A missing key is sent as an empty
    bearer (local servers need none).
    """
    client = openai.AsyncOpenAI(
        api_key=api_key or "unused",
        base_url=base_url,
        http_client=cast(Any, http_client),
        max_retries=0,
        organization=organization or "",
        project=project or "",
        webhook_secret="",
    )
    client.organization = organization
    client.project = project
    if api_key is None:
        client.api_key = ""
    return client


class PayloadRecorder:
    """Numbers and forwards native payloads to ``ModelRequest.on_payload`` (never raises)."""

    def __init__(self, callback: PayloadCallback | None, *, provider: str, api: str) -> None:
        self._callback = callback
        self._provider = provider
        self._api = api
        self._order = 0

    def __call__(self, direction: str, payload: Any) -> None:
        if self._callback is None:
            return
        event = PayloadEvent(
            provider=self._provider,
            api=self._api,
            direction="request"
            if direction == "request"
            else ("stream" if direction == "stream" else "response"),
            payload=payload,
            order=self._order,
        )
        self._order += 1
        try:
            self._callback(event)
        except Exception:  # a capture callback must not break the call
            return
