"""Optional behaviour on core contracts: budgets, guards, usage and telemetry.

Two parts need an extra and are loaded on first use: :class:`OpenTelemetrySink` (``otel``:
``pip install "robota-agent-plugin[otel]"``) and :func:`genai_price` (``prices``:
``pip install "robota-agent-plugin[prices]"``). Without the extra, using the name raises
:class:`~robota.core.errors.MissingExtraError`; everything else works without either.
"""

from typing import TYPE_CHECKING, Any

from robota.plugins.budget import (
    BudgetedProvider,
    BudgetExceededError,
    BudgetLimit,
    BudgetRemaining,
    PriceFunction,
    UsageBudget,
)
from robota.plugins.cache_break import CacheBreak, CacheBreakDetector
from robota.plugins.failures import GuardedSink, PluginFailure
from robota.plugins.tool_budget import ToolBudgetExceeded, ToolCallBudget
from robota.plugins.usage_report import RunStatus, UsageReport, UsageTally

if TYPE_CHECKING:
    from robota.plugins.pricing import genai_price
    from robota.plugins.telemetry import OpenTelemetrySink

__all__ = [
    "BudgetExceededError",
    "BudgetLimit",
    "BudgetRemaining",
    "BudgetedProvider",
    "CacheBreak",
    "CacheBreakDetector",
    "GuardedSink",
    "OpenTelemetrySink",
    "PluginFailure",
    "PriceFunction",
    "RunStatus",
    "ToolBudgetExceeded",
    "ToolCallBudget",
    "UsageBudget",
    "UsageReport",
    "UsageTally",
    "genai_price",
]


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:

    def __getattr__(name: str) -> Any:
        """``__version__``: this distribution's installed version, read from its metadata on demand;
        ``OpenTelemetrySink`` and ``genai_price``: imported on first use (they need the ``otel`` and
        ``prices`` extras; :class:`~robota.core.errors.MissingExtraError` when missing)."""
        if name == "OpenTelemetrySink":
            from robota.plugins.telemetry import OpenTelemetrySink

            return OpenTelemetrySink
        if name == "genai_price":
            from robota.plugins.pricing import genai_price

            return genai_price
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-plugin")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
