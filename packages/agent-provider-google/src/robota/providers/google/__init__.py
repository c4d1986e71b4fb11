"""Google Gemini provider for Robota (``google-genai`` SDK).

Example:
    >>> import httpx
    >>> from robota.providers.google import GoogleProvider
    >>> GoogleProvider(api_key="k", http_client=httpx.AsyncClient()).name
    'google'
"""

from typing import TYPE_CHECKING

from robota.providers.google._cost import estimate_cost
from robota.providers.google._endpoint import GEMINI_BASE_URL
from robota.providers.google._models import MODELS, THINKING, ThinkingControl
from robota.providers.google._provider import GoogleProvider, VertexTarget
from robota.providers.google._request import SYNTHETIC_ID_PREFIX

__all__ = [
    "GEMINI_BASE_URL",
    "MODELS",
    "SYNTHETIC_ID_PREFIX",
    "THINKING",
    "GoogleProvider",
    "ThinkingControl",
    "VertexTarget",
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

            return version("robota-agent-provider-google")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
