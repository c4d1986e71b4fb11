"""The ``robota`` command (the composition root: the only package that imports providers)."""

from typing import TYPE_CHECKING

from robota.cli.exit_codes import ExitCode
from robota.cli.main import build_parser, main

__all__ = ["ExitCode", "build_parser", "main"]


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:

    def __getattr__(name: str) -> str:
        """``__version__``: this distribution's installed version, read from its metadata on demand."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-cli")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
