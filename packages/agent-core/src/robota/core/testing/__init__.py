"""Test support for Robota users and Robota's own tests. Runtime code never imports this."""

__all__: list[str] = []
