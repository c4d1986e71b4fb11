"""Background task and subagent lifecycle state machines."""

__all__: list[str] = []
