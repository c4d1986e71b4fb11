"""Optional behaviour on core contracts: budgets, guards, usage and telemetry."""

__all__: list[str] = []
