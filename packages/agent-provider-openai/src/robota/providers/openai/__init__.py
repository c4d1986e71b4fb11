"""OpenAI Responses / Chat Completions and OpenAI-compatible servers for Robota.

Two providers wrap the official ``openai`` SDK: :class:`OpenAIResponsesProvider` (Responses API)
and :class:`OpenAIChatProvider` (Chat Completions, also for OpenAI-compatible servers through a
:class:`CompatProfile`).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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


_EXPORTS = {
    "robota.providers.openai._compat": ("COMPAT_PROFILES", "CompatProfile", "compat_profile"),
    "robota.providers.openai._endpoint": ("OPENAI_BASE_URL", "is_openai_endpoint"),
    "robota.providers.openai._errors": ("classify_body", "classify_error", "parse_retry_after"),
    "robota.providers.openai._models": (
        "EFFORT_SOURCE",
        "OPENAI_MODELS",
        "EffortProfile",
        "effort_profile",
        "openai_model_info",
        "resolve_effort",
    ),
    "robota.providers.openai._usage": ("estimate_cost",),
    "robota.providers.openai.chat": ("OpenAIChatProvider",),
    "robota.providers.openai.responses": ("OpenAIResponsesProvider",),
}
"""Submodule → the names it gives this package, imported on first use: a program that uses the
Chat Completions provider never imports the Responses one."""

_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:

    def __getattr__(name: str) -> object:
        """``__version__``: this distribution's installed version, read from its metadata on
        demand; an exported name: imported from its submodule on first use (PEP 562) and kept
        here, so it is the submodule's own object; a submodule's name: that submodule."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-provider-openai")
        from importlib import import_module

        module = _WHERE.get(name)
        if module is not None:
            value = getattr(import_module(module), name)
            globals()[name] = value
            return value
        if not name.startswith("__"):  # a submodule not imported yet (``openai.chat``)
            try:
                return import_module(f"{__name__}.{name}")
            except ModuleNotFoundError as error:
                if error.name != f"{__name__}.{name}":
                    raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        """The module's names, lazy exports included."""
        return sorted({*globals(), *_WHERE})
