"""Optional behaviour on core contracts: budgets, guards, usage and telemetry."""

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
from robota.plugins.pricing import genai_price
from robota.plugins.telemetry import OpenTelemetrySink
from robota.plugins.tool_budget import ToolBudgetExceeded, ToolCallBudget
from robota.plugins.usage_report import RunStatus, UsageReport, UsageTally

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
