"""Credential store port: a host's secrets by (service, account) (seed 000, "Credential Store
Port").

A package that needs a secret kept takes a :class:`CredentialStore` and never depends on the host
that implements it; an OS keychain (:class:`KeyringCredentialStore`) and an owner-only JSON file
(:class:`FileCredentialStore`) are interchangeable behind it. The port is a string by a
service-and-account key, read, written and removed, and nothing more.

A store that cannot be read raises :class:`CredentialStoreError`; it never reports the secret
absent (``None``) when it does not know. Coordination between readers (one token refresh, one
creator at a time) is the caller's: a keychain offers no atomic create, and the same lock must
serve every backend.

The methods are synchronous (keychain APIs are); from async code call them through
``anyio.to_thread.run_sync``.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> store = FileCredentialStore(Path(tempfile.mkdtemp()) / "credentials.json")
    >>> store.set("robota.anthropic", "default", "sk-test")
    >>> store.get("robota.anthropic", "default")
    'sk-test'
    >>> store.delete("robota.anthropic", "default"), store.get("robota.anthropic", "default")
    (True, None)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import pydantic
from robota.core.extras import install_hint
from robota.core.host.errors import (
    CredentialStoreError,
    InvalidCredentialKeyError,
    OwnerOnlyError,
)
from robota.core.host.owner_only import (
    ensure_private_dir,
    private_dir,
    read_private_file,
    write_private_file,
)

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

__all__ = ["CredentialStore", "FileCredentialStore", "KeyringCredentialStore"]


@runtime_checkable
class CredentialStore(Protocol):
    """Keeps secrets by (service, account).

    Every method raises :class:`InvalidCredentialKeyError` for an empty service or account (or
    one holding a NUL byte) and :class:`CredentialStoreError` when the backend fails.
    """

    def get(self, service: str, account: str) -> str | None:
        """Return the secret, or None when the backend positively has none."""
        ...

    def set(self, service: str, account: str, secret: str) -> None:
        """Store ``secret``, replacing any previous one."""
        ...

    def delete(self, service: str, account: str) -> bool:
        """Remove the secret; return True if one was removed, False if there was none."""
        ...


def _check_key(service: str, account: str) -> None:
    for label, value in (("service", service), ("account", account)):
        if not value or "\x00" in value:
            raise InvalidCredentialKeyError(f"{label} must be a non-empty string without NUL")


class KeyringCredentialStore:
    """:class:`CredentialStore` over the ``keyring`` package (macOS Keychain, Windows Credential
    Locker, Secret Service, KWallet).

    Requires the ``keyring`` extra (``pip install robota-agent-core[keyring]``); the package is
    imported on first use, not at import of this module.

    Args:
        backend: A ``keyring.backend.KeyringBackend`` to use; None uses keyring's configured
            default (``keyring.get_keyring()`` at call time).
    """

    def __init__(self, backend: KeyringBackend | None = None) -> None:
        self._backend = backend

    def _keyring(self) -> KeyringBackend:
        try:
            import keyring
        except ImportError as error:
            raise CredentialStoreError(
                "the keyring package is not installed (extra 'keyring'): "
                + install_hint("robota-agent-core", "keyring")
            ) from error
        return self._backend if self._backend is not None else keyring.get_keyring()

    def get(self, service: str, account: str) -> str | None:
        """Return the secret, or None when the keychain has none.

        Raises:
            CredentialStoreError: The keychain failed (locked, no backend, D-Bus error).
        """
        _check_key(service, account)
        backend = self._keyring()
        try:
            return backend.get_password(service, account)
        except Exception as error:
            raise CredentialStoreError(f"keyring get failed: {error!r}") from error

    def set(self, service: str, account: str, secret: str) -> None:
        """Store the secret in the keychain.

        Raises:
            CredentialStoreError: The keychain failed.
        """
        _check_key(service, account)
        backend = self._keyring()
        try:
            backend.set_password(service, account, secret)
        except Exception as error:
            raise CredentialStoreError(f"keyring set failed: {error!r}") from error

    def delete(self, service: str, account: str) -> bool:
        """Remove the secret; False when the keychain had none.

        Raises:
            CredentialStoreError: The keychain failed (absence is asked first, so a delete
                failure is never read as "absent").
        """
        if self.get(service, account) is None:
            return False
        backend = self._keyring()
        try:
            backend.delete_password(service, account)
        except Exception as error:
            raise CredentialStoreError(f"keyring delete failed: {error!r}") from error
        return True


class _CredentialFile(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    version: int = 1
    credentials: dict[str, dict[str, str]] = pydantic.Field(default_factory=dict)


class FileCredentialStore:
    """:class:`CredentialStore` in one owner-only JSON file.

    The file (``{"version": 1, "credentials": {service: {account: secret}}}``) is written
    atomically with mode 0600 inside a 0700 directory through
    :mod:`robota.core.host.owner_only`. A missing file is an empty store; a file that cannot be
    read or parsed, or that others can read, raises :class:`CredentialStoreError`. Every read
    and write opens the folder first (``O_NOFOLLOW``, verified owner-only) and reaches the file
    through that descriptor, so a folder swapped for a link since the last call is refused, not
    followed; a hard-linked file is refused too.

    Args:
        path: The JSON file, e.g. ``~/.robota/credentials.json``.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = Path(path)

    @property
    def path(self) -> Path:
        """The JSON file (callers coordinating through a lock file next to it use this)."""
        return self._path

    def _load(self) -> _CredentialFile:
        try:
            with private_dir(self._path.parent) as folder:
                raw = read_private_file(self._path, dir_fd=folder)
        except FileNotFoundError:
            return _CredentialFile()
        except (OSError, OwnerOnlyError) as error:
            raise CredentialStoreError(f"cannot read {str(self._path)!r}: {error}") from error
        try:
            return _CredentialFile.model_validate(json.loads(raw))
        except (ValueError, pydantic.ValidationError) as error:
            raise CredentialStoreError(f"{str(self._path)!r} is corrupt: {error}") from error

    def _save(self, data: _CredentialFile) -> None:
        try:
            ensure_private_dir(self._path.parent)
            with private_dir(self._path.parent) as folder:
                write_private_file(
                    self._path, data.model_dump_json(indent=2).encode("utf-8"), dir_fd=folder
                )
        except (OSError, OwnerOnlyError) as error:
            raise CredentialStoreError(f"cannot write {str(self._path)!r}: {error}") from error

    def get(self, service: str, account: str) -> str | None:
        """Return the secret, or None when the file (or the key) is absent.

        Raises:
            CredentialStoreError: The file is unreadable, corrupt, or not owner-only.
        """
        _check_key(service, account)
        return self._load().credentials.get(service, {}).get(account)

    def set(self, service: str, account: str, secret: str) -> None:
        """Store the secret, rewriting the file atomically.

        Raises:
            CredentialStoreError: The file cannot be read back or written.
        """
        _check_key(service, account)
        data = self._load()
        data.credentials.setdefault(service, {})[account] = secret
        self._save(data)

    def delete(self, service: str, account: str) -> bool:
        """Remove the secret; False when there was none (the file is then left untouched).

        Raises:
            CredentialStoreError: The file cannot be read or written.
        """
        _check_key(service, account)
        data = self._load()
        accounts = data.credentials.get(service, {})
        if account not in accounts:
            return False
        del accounts[account]
        if not accounts:
            del data.credentials[service]
        self._save(data)
        return True
