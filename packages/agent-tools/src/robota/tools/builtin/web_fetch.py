"""``web_fetch``: fetch a URL through the egress policy and return it as text (seed 004, built-in
tools; seed 000, "Egress Policy").

Every hop (redirects included) goes through :class:`~robota.core.host.egress_client.
EgressGuardedClient`, so loopback, private, link-local and metadata addresses are refused before
any byte is sent; the download is bounded in bytes and seconds. HTML becomes Markdown through
``markdownify`` (``<script>``, ``<style>``, ``<noscript>`` and ``<head>`` dropped, the
``<title>`` kept); ``text/*`` and JSON/XML are returned as they are; other types are refused.
"""

from __future__ import annotations

from email.message import Message
from typing import Any, ClassVar

import httpx
from bs4 import BeautifulSoup
from markdownify import MarkdownConverter
from pydantic import BaseModel, ConfigDict, Field
from robota.core.host.egress import EgressPolicy
from robota.core.host.egress_client import EgressGuardedClient, FetchRefused
from robota.core.host.errors import EgressBodyTooLargeError, EgressTimeoutError
from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    RiskClass,
    ToolContext,
    ToolOutput,
    ToolReturn,
)
from robota.tools.bounds import DEFAULT_BOUNDS, OutputBounds, bound_text
from robota.tools.builtin._base import BuiltinTool
from robota.tools.errors import ToolUsageError

__all__ = ["WebFetchArgs", "WebFetchTool", "html_to_markdown"]

_TEXT_TYPES = frozenset(
    {"application/json", "application/xml", "application/javascript", "application/x-ndjson"}
)


class WebFetchArgs(BaseModel):
    """Arguments of ``web_fetch``."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="Absolute http(s) URL to fetch.")


def html_to_markdown(html: str) -> str:
    """Convert an HTML document to Markdown (ATX headings), dropping scripts, styles and the
    ``<head>`` but keeping the title as a first ``Title:`` line."""
    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(strip=True) if soup.title is not None else ""
    for tag in soup(["script", "style", "noscript", "head", "template"]):
        tag.decompose()
    body = MarkdownConverter(heading_style="ATX").convert_soup(soup).strip()
    return f"Title: {title}\n\n{body}" if title else body


def _media_type(headers: tuple[tuple[str, str], ...]) -> tuple[str, str]:
    value = next((v for k, v in headers if k.lower() == "content-type"), "")
    message = Message()
    message["content-type"] = value or "application/octet-stream"
    charset = message.get_param("charset")
    return message.get_content_type(), charset if isinstance(charset, str) else "utf-8"


class WebFetchTool(BuiltinTool[WebFetchArgs]):
    """Fetch a web page or text document within the egress policy.

    Result: ``URL:``, ``Status:`` and ``Content-Type:`` lines, a blank line, then the text
    (cut to ``bounds``). Error results: a refused hop (naming the
    :class:`~robota.core.host.egress.EgressReason` and its detail), a body over ``max_bytes``,
    a fetch over ``timeout`` seconds, a transport failure, an HTTP status of 400 or more (the
    body is still shown), an unsupported content type.

    Args:
        http_client: The ``httpx.AsyncClient`` to send with (dedicated to guarded traffic);
            when None, a client is made for each call.
        egress_policy: The policy; core's default :class:`EgressPolicy` when None.
        max_bytes: Bound on the downloaded body, bytes (default 5 MiB).
        timeout: Bound on the whole fetch, every hop included, seconds (default 30).
        bounds: Limits on the returned text.
        user_agent: Sent as ``User-Agent``.
    """

    name = "web_fetch"
    description = (
        "Fetch a URL (http/https) and return its content as text: HTML pages are converted "
        "to Markdown, plain text and JSON are returned as they are."
    )
    risk = RiskClass.EXECUTE
    permission_argument = PermissionArgument(key="url", kind=ArgumentKind.URL)
    idempotent = True
    args_model: ClassVar[type[BaseModel]] = WebFetchArgs

    def __init__(
        self,
        *,
        http_client: httpx.AsyncClient | None = None,
        egress_policy: EgressPolicy | None = None,
        max_bytes: int = 5 * 1024 * 1024,
        timeout: float = 30.0,
        bounds: OutputBounds = DEFAULT_BOUNDS,
        user_agent: str = "robota-web-fetch/0.1",
    ) -> None:
        self.http_client = http_client
        self.egress_policy = egress_policy if egress_policy is not None else EgressPolicy()
        self.max_bytes = max_bytes
        self.fetch_timeout = timeout
        self.bounds = bounds
        self.user_agent = user_agent

    async def run(self, args: WebFetchArgs, ctx: ToolContext[Any]) -> ToolOutput:
        if self.http_client is not None:
            return await self._fetch(self.http_client, args.url)
        async with httpx.AsyncClient() as client:
            return await self._fetch(client, args.url)

    async def _fetch(self, client: httpx.AsyncClient, url: str) -> ToolOutput:
        guarded = EgressGuardedClient(
            client, self.egress_policy, max_bytes=self.max_bytes, timeout=self.fetch_timeout
        )
        try:
            result = await guarded.fetch(url, headers={"User-Agent": self.user_agent})
        except EgressBodyTooLargeError as error:
            raise ToolUsageError(f"response too large: {error.message}") from error
        except EgressTimeoutError as error:
            raise ToolUsageError(f"fetch timed out: {error.message}") from error
        except httpx.HTTPError as error:
            raise ToolUsageError(
                f"fetch of {url!r} failed: {type(error).__name__}: {error}"
            ) from error
        if isinstance(result, FetchRefused):
            decision = result.decision
            raise ToolUsageError(
                f"refused by the egress policy ({decision.reason.value}): {decision.url}"
                + (f" - {decision.detail}" if decision.detail else "")
            )
        media_type, charset = _media_type(result.headers)
        try:
            text = result.content.decode(charset, errors="replace")
        except LookupError:
            text = result.content.decode("utf-8", errors="replace")
        if media_type in ("text/html", "application/xhtml+xml"):
            text = html_to_markdown(text)
        elif not (
            media_type.startswith("text/")
            or media_type in _TEXT_TYPES
            or media_type.endswith(("+json", "+xml"))
        ):
            raise ToolUsageError(
                f"{result.url} returned {media_type} ({len(result.content)} bytes), which is "
                "not text; web_fetch returns HTML, text and JSON only"
            )
        header = f"URL: {result.url}\nStatus: {result.status_code}\nContent-Type: {media_type}\n\n"
        body = bound_text(text, self.bounds).text
        return ToolReturn.text(header + body, is_error=result.status_code >= 400)
