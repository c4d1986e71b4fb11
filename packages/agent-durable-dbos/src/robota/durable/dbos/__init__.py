"""Agent runs as DBOS workflows."""

__all__: list[str] = []
