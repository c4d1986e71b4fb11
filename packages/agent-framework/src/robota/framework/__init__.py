"""Assembly: interactive sessions, settings layers, subagents, fallback."""

__all__: list[str] = []
