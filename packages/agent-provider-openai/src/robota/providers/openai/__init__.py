"""OpenAI Responses / Chat Completions and OpenAI-compatible servers for Robota."""

__all__: list[str] = []
