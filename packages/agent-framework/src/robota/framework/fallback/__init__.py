"""Model fallback chain (seed 003, "A model fallback chain moves a request only where another
model could serve it, and only before anything was shown")."""

from robota.framework.fallback.events import FallbackEntrySkipped, FallbackSwitched
from robota.framework.fallback.provider import (
    ChainEntry,
    FallbackProvider,
    FallbackRun,
    ProviderFactory,
)
from robota.framework.fallback.switchable import is_switchable

__all__ = [
    "ChainEntry",
    "FallbackEntrySkipped",
    "FallbackProvider",
    "FallbackRun",
    "FallbackSwitched",
    "ProviderFactory",
    "is_switchable",
]
