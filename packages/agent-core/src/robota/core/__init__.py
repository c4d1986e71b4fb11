"""Provider-neutral contracts and the agent execution loop."""

__all__: list[str] = []
