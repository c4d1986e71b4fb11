"""Errors of the built-in tools.

The built-in tools turn these into error tool results (``ToolReturn(is_error=True)``) rather
than letting them escape, so a model sees the message and can correct itself.
"""

from __future__ import annotations

from robota.core.errors import ErrorCategory, RobotaError

__all__ = ["ToolUsageError"]


class ToolUsageError(RobotaError):
    """A built-in tool cannot do what the call asked (missing file, ambiguous edit, binary
    file, unknown task id, refused URL). The message says what to change."""

    code = "tool_usage"
    default_category = ErrorCategory.USER
    default_recoverable = True
