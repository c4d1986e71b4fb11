"""Built-in tools (files, search, shell, web fetch, todo) and MCP toolsets."""

__all__: list[str] = []
