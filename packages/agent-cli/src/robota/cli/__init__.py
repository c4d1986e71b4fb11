"""The ``robota`` command (the composition root: the only package that imports providers)."""

from robota.cli.exit_codes import ExitCode
from robota.cli.main import build_parser, main

__all__ = ["ExitCode", "build_parser", "main"]
