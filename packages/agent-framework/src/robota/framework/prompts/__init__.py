"""Permission prompting: requests are events any attached surface can settle; first settlement
wins, exactly one resolution event, a rejecting callback resolves to deny (seed 003)."""

from robota.framework.prompts.events import PromptRequested, PromptResolved, ResolutionSource
from robota.framework.prompts.registry import PendingPrompt, PromptRegistry, PromptSurface

__all__ = [
    "PendingPrompt",
    "PromptRegistry",
    "PromptRequested",
    "PromptResolved",
    "PromptSurface",
    "ResolutionSource",
]
