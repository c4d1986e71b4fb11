"""Anthropic Messages API provider for Robota (``robota.providers.anthropic``).

Wraps the official ``anthropic`` SDK: :class:`AnthropicProvider` translates neutral requests to
the Messages API and back (text, thinking round-trip, tool calls, hosted tools, structured
output, prompt caching, effort), classifies errors into Robota's taxonomy and counts tokens.
"""

from typing import TYPE_CHECKING

from robota.providers.anthropic._effort import BUDGET_TOKENS
from robota.providers.anthropic._endpoint import DEFAULT_BASE_URL
from robota.providers.anthropic._models import MODEL_SPECS, ModelSpec
from robota.providers.anthropic._provider import AnthropicProvider
from robota.providers.anthropic._request import HOSTED_TOOL_SPECS, CacheBreakpoint
from robota.providers.anthropic._transport import HttpxBridgeTransport
from robota.providers.anthropic._usage import estimate_cost

__all__ = [
    "BUDGET_TOKENS",
    "DEFAULT_BASE_URL",
    "HOSTED_TOOL_SPECS",
    "MODEL_SPECS",
    "AnthropicProvider",
    "CacheBreakpoint",
    "HttpxBridgeTransport",
    "ModelSpec",
    "estimate_cost",
]


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:

    def __getattr__(name: str) -> str:
        """``__version__``: this distribution's installed version, read from its metadata on demand."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-provider-anthropic")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
