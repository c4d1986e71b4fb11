"""Google Gemini provider for Robota."""

__all__: list[str] = []
