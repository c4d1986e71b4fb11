"""The `robota` command."""

__all__: list[str] = []
