"""OpenAI Responses / Chat Completions and OpenAI-compatible servers for Robota.

Two providers wrap the official ``openai`` SDK: :class:`OpenAIResponsesProvider` (Responses API)
and :class:`OpenAIChatProvider` (Chat Completions, also for OpenAI-compatible servers through a
:class:`CompatProfile`).
"""

from typing import TYPE_CHECKING

from robota.providers.openai._compat import COMPAT_PROFILES, CompatProfile, compat_profile
from robota.providers.openai._endpoint import OPENAI_BASE_URL, is_openai_endpoint
from robota.providers.openai._errors import classify_body, classify_error, parse_retry_after
from robota.providers.openai._models import (
    EFFORT_SOURCE,
    OPENAI_MODELS,
    EffortProfile,
    effort_profile,
    openai_model_info,
    resolve_effort,
)
from robota.providers.openai._usage import estimate_cost
from robota.providers.openai.chat import OpenAIChatProvider
from robota.providers.openai.responses import OpenAIResponsesProvider

__all__ = [
    "COMPAT_PROFILES",
    "EFFORT_SOURCE",
    "OPENAI_BASE_URL",
    "OPENAI_MODELS",
    "CompatProfile",
    "EffortProfile",
    "OpenAIChatProvider",
    "OpenAIResponsesProvider",
    "classify_body",
    "classify_error",
    "compat_profile",
    "effort_profile",
    "estimate_cost",
    "is_openai_endpoint",
    "openai_model_info",
    "parse_retry_after",
    "resolve_effort",
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

            return version("robota-agent-provider-openai")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
