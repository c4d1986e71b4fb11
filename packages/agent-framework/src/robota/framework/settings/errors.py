"""Typed settings errors (seed 003, "Error taxonomy": corrupt settings file, and the trust
boundary between the user's layer and a project's)."""

from __future__ import annotations

from pathlib import Path

from robota.core.errors import ConfigurationError

__all__ = ["SettingsFileError", "UntrustedSettingError"]


class SettingsFileError(ConfigurationError):
    """A settings file exists but cannot be read or parsed.

    Attributes:
        path: The file.
        detail: The read or parse message.
    """

    code = "settings_file"

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(f"settings file {path}: {detail}")
        self.path = path
        self.detail = detail


class UntrustedSettingError(ConfigurationError):
    """A project (or project-local) layer sets a key only the user's own layer, the host or
    the organization policy may set (issue #13).

    Raised while the settings load, before anything runs: such a key is refused, never
    silently dropped, so the operator learns what the checked-in file tried.

    Attributes:
        key: The dotted key, e.g. ``env.BASH_ENV`` or ``providers.anthropic.api_key_env``.
        path: The file the layer came from, or None for an in-memory layer.
        reason: Why the key is refused.
    """

    code = "untrusted_setting"

    def __init__(self, key: str, reason: str, *, path: Path | None = None) -> None:
        where = f"settings file {path}" if path is not None else "a project settings layer"
        super().__init__(f"{where}: `{key}` is refused: {reason}")
        self.key = key
        self.path = path
        self.reason = reason
