"""The HTTP hook executor (seed 000, "Outcome contract").

The hook's input JSON is POSTed to ``hook.url`` (``Content-Type: application/json``, plus
``hook.headers``) through an injected :class:`httpx.AsyncClient` (one is created on first use and
closed by :meth:`HttpHookExecutor.aclose` when none was given). Redirects are not followed.

A verdict counts only when the 2xx response body is a JSON object whose ``allow`` field is
exactly ``true`` or ``false`` (schema: :mod:`robota.core.hooks._decode`). An explicit block
directive — ``{"decision": "block", "reason": ...}`` or ``hookSpecificOutput.permissionDecision
== "deny"`` — wins even beside an undecodable ``allow``. Everything else is an error (no
verdict): a non-2xx status (``HTTP 500``), a body that is not JSON, ``"allow": "true"`` (a
string), a missing ``allow``, a body over :data:`MAX_BODY_BYTES`, a transport failure, or no
answer within ``hook.timeout`` seconds (``timed out after <n>s``).

Hook URLs are the host's trusted configuration; they are not checked by the egress policy. A
host that wants that passes a client whose transport enforces it.
"""

from __future__ import annotations

import anyio
import httpx
from robota.core.hooks._decode import decode_json_text
from robota.core.hooks.config import HookConfig
from robota.core.hooks.events import HookInput
from robota.core.hooks.executors.base import HookExecutor, format_seconds
from robota.core.hooks.outcome import HookError, HookResult

__all__ = ["MAX_BODY_BYTES", "HttpHookExecutor"]

MAX_BODY_BYTES = 1024 * 1024
"""Largest response body (bytes) an HTTP hook may answer with."""


class HttpHookExecutor(HookExecutor):
    """POSTs hook inputs to URLs.

    Args:
        client: The client to send with (its transport, proxies and TLS settings apply). When
            None, one is created on first use and owned (closed) by this executor.
    """

    def __init__(self, client: httpx.AsyncClient | None = None) -> None:
        self._client = client
        self._owned: httpx.AsyncClient | None = None

    def check(self, hook: HookConfig) -> str | None:
        """An HTTP hook needs an ``http://`` or ``https://`` ``url``."""
        if not hook.url:
            return "an http hook needs 'url'"
        try:
            scheme = httpx.URL(hook.url).scheme
        except httpx.InvalidURL as exc:
            return f"invalid 'url': {exc}"
        if scheme not in ("http", "https"):
            return f"'url' must be http or https, got {scheme!r}"
        return None

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is not None:
            return self._client
        if self._owned is None:
            self._owned = httpx.AsyncClient()
        return self._owned

    async def run(self, hook: HookConfig, payload: HookInput) -> HookResult:
        """POST the input and decode the answer; see the module docstring."""
        if not hook.url:
            return HookError(reason="no url")
        client = self._get_client()
        body = bytearray()
        status = 0
        too_large = False
        with anyio.move_on_after(hook.timeout) as scope:
            try:
                async with client.stream(
                    "POST",
                    hook.url,
                    json=payload.to_json(),
                    headers=dict(hook.headers),
                    timeout=hook.timeout,
                    follow_redirects=False,
                ) as response:
                    status = response.status_code
                    if 200 <= status < 300:
                        async for chunk in response.aiter_bytes():
                            body.extend(chunk)
                            if len(body) > MAX_BODY_BYTES:
                                too_large = True
                                break
            except httpx.TimeoutException:
                return HookError(reason=f"timed out after {format_seconds(hook.timeout)}")
            except httpx.HTTPError as exc:
                return HookError(reason=f"request failed: {type(exc).__name__}: {exc}")
        if scope.cancelled_caught:
            return HookError(reason=f"timed out after {format_seconds(hook.timeout)}")
        if not 200 <= status < 300:
            return HookError(reason=f"HTTP {status}")
        if too_large:
            return HookError(reason=f"invalid output: body larger than {MAX_BODY_BYTES} bytes")
        try:
            text = bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return HookError(reason="invalid output: body is not UTF-8")
        return decode_json_text(text, require_verdict=True)

    async def aclose(self) -> None:
        """Close the client this executor created (an injected client stays open)."""
        if self._owned is not None:
            owned, self._owned = self._owned, None
            await owned.aclose()
