"""The ``robota`` command (the composition root: the only package that imports providers)."""

from robota.cli.exit_codes import ExitCode
from robota.cli.main import build_parser, main

__all__ = ["ExitCode", "build_parser", "main"]


def __getattr__(name: str) -> str:
    """``__version__``: this distribution's installed version, read from its metadata on demand."""
    if name == "__version__":
        from importlib.metadata import version

        return version("robota-agent-cli")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
