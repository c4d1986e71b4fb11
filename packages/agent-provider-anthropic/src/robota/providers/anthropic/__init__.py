"""Anthropic Messages API provider for Robota."""

__all__: list[str] = []
