"""Token usage (seed 000, "Usage-Triple SSOT").

One shape for every request and every run: input / output / total tokens, with the prompt-cache
read counted *inside* the input count (not added to it), cache writes, reasoning tokens (inside
output) and any counter a vendor reports that has no neutral name kept by name in ``details``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

__all__ = ["HOSTED_DETAIL_PREFIX", "Usage", "hosted_detail"]

HOSTED_DETAIL_PREFIX = "hosted."
"""Prefix of the :attr:`Usage.details` keys that count vendor-run (hosted) tool calls."""


def hosted_detail(tool: str) -> str:
    """The :attr:`Usage.details` key counting calls of hosted tool ``tool`` (a
    :class:`~robota.core.capabilities.HostedTool` value).

    Example:
        >>> hosted_detail("web_search")
        'hosted.web_search'
    """
    return f"{HOSTED_DETAIL_PREFIX}{tool}"


@dataclass(frozen=True, kw_only=True, slots=True)
class Usage:
    """Token counts of one request, or summed over a run.

    Attributes:
        input_tokens: Prompt tokens, including ``cache_read_tokens`` and ``cache_write_tokens``.
        output_tokens: Completion tokens, including ``reasoning_tokens``.
        cache_read_tokens: Prompt tokens served from the vendor's prompt cache (part of input).
        cache_write_tokens: Prompt tokens written to the vendor's prompt cache (part of input).
        reasoning_tokens: Output tokens spent on hidden reasoning (part of output).
        requests: Number of provider requests these counts cover.
        details: Vendor counters with no neutral name, by the vendor's own name (tokens), and
            the hosted tool calls the vendor ran, under ``hosted.<tool>`` (a count of calls,
            not tokens; see :func:`hosted_detail` and :attr:`hosted_calls`).
        partial: True when the adapter could not attest the counts as a consistent total.

    Example:
        >>> a = Usage(input_tokens=10, output_tokens=5, cache_read_tokens=4, requests=1)
        >>> (a + a).total_tokens
        30
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    requests: int = 0
    details: Mapping[str, int] = field(default_factory=lambda: {})
    partial: bool = False

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    @property
    def hosted_calls(self) -> Mapping[str, int]:
        """Hosted tool calls the vendor ran, by :class:`~robota.core.capabilities.HostedTool`
        value (the ``hosted.<tool>`` entries of :attr:`details`).

        Example:
            >>> Usage(details={"hosted.web_search": 2, "other": 7}).hosted_calls
            {'web_search': 2}
        """
        return {
            key.removeprefix(HOSTED_DETAIL_PREFIX): value
            for key, value in self.details.items()
            if key.startswith(HOSTED_DETAIL_PREFIX)
        }

    def with_hosted_calls(self, counts: Mapping[str, int]) -> Usage:
        """This usage with hosted-call ``counts`` (tool value → calls) added to :attr:`details`
        for every tool it does not count yet — a count the vendor reported wins over one an
        adapter derived from the response's hosted call parts.

        Example:
            >>> u = Usage(details={"hosted.web_search": 1})
            >>> dict(u.with_hosted_calls({"web_search": 3, "code_execution": 1}).details)
            {'hosted.web_search': 1, 'hosted.code_execution': 1}
        """
        details = dict(self.details)
        for tool, count in counts.items():
            details.setdefault(hosted_detail(tool), count)
        if details == self.details:
            return self
        return replace(self, details=details)

    def __add__(self, other: Usage) -> Usage:
        details = dict(self.details)
        for key, value in other.details.items():
            details[key] = details.get(key, 0) + value
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            requests=self.requests + other.requests,
            details=details,
            partial=self.partial or other.partial,
        )
