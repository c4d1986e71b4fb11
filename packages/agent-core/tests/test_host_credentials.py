"""Credential store port (seed 000, "Credential Store Port"): one conformance suite, run
against every backend, plus each backend's failure modes."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import KeyringLocked, PasswordDeleteError, PasswordSetError
from robota.core.host.credentials import (
    CredentialStore,
    FileCredentialStore,
    KeyringCredentialStore,
)
from robota.core.host.errors import CredentialStoreError, InvalidCredentialKeyError


class MemoryKeyring(KeyringBackend):
    """An in-process keychain with keyring's semantics (delete of a missing key raises)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.entries:
            raise PasswordDeleteError("not found")
        del self.entries[(service, username)]


@pytest.fixture
def global_memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


# A factory returns a fresh store object over the same backing state each call, so the suite
# can check that what one instance wrote another instance reads.
StoreFactory = Callable[[], CredentialStore]


@pytest.fixture(params=["file", "keyring-injected", "keyring-global"])
def make_store(
    request: pytest.FixtureRequest, tmp_path: Path, global_memory_keyring: MemoryKeyring
) -> StoreFactory:
    if request.param == "file":
        path = tmp_path / "home" / ".robota" / "credentials.json"
        return lambda: FileCredentialStore(path)
    if request.param == "keyring-injected":
        backend = MemoryKeyring()
        return lambda: KeyringCredentialStore(backend)
    return lambda: KeyringCredentialStore()


# --- conformance suite (every backend) --------------------------------------------------------


def test_conformance_is_a_credential_store(make_store: StoreFactory) -> None:
    assert isinstance(make_store(), CredentialStore)


def test_conformance_absent_secret_is_none(make_store: StoreFactory) -> None:
    assert make_store().get("robota.test", "nobody") is None


def test_conformance_set_then_get_across_instances(make_store: StoreFactory) -> None:
    make_store().set("robota.anthropic", "default", "sk-ant-1")
    assert make_store().get("robota.anthropic", "default") == "sk-ant-1"


def test_conformance_set_replaces(make_store: StoreFactory) -> None:
    store = make_store()
    store.set("robota.openai", "work", "old")
    store.set("robota.openai", "work", "new")
    assert store.get("robota.openai", "work") == "new"


def test_conformance_keys_are_independent(make_store: StoreFactory) -> None:
    store = make_store()
    store.set("svc-a", "acct", "A")
    store.set("svc-b", "acct", "B")
    store.set("svc-a", "other", "C")
    assert (store.get("svc-a", "acct"), store.get("svc-b", "acct")) == ("A", "B")
    assert store.get("svc-a", "other") == "C"
    assert store.delete("svc-a", "acct") is True
    assert (store.get("svc-a", "acct"), store.get("svc-b", "acct")) == (None, "B")


def test_conformance_delete_reports_whether_removed(make_store: StoreFactory) -> None:
    store = make_store()
    store.set("robota.google", "default", "g-key")
    assert store.delete("robota.google", "default") is True
    assert store.delete("robota.google", "default") is False
    assert make_store().get("robota.google", "default") is None


def test_conformance_secret_round_trips_exactly(make_store: StoreFactory) -> None:
    secret = 'pässwörd "quoted"\n\t{"json": true} 🔑'
    make_store().set("robota.unicode", "ü", secret)
    assert make_store().get("robota.unicode", "ü") == secret


@pytest.mark.parametrize(("service", "account"), [("", "a"), ("s", ""), ("s\x00", "a")])
def test_conformance_invalid_key_raises(
    make_store: StoreFactory, service: str, account: str
) -> None:
    store = make_store()
    for call in (
        lambda: store.get(service, account),
        lambda: store.set(service, account, "x"),
        lambda: store.delete(service, account),
    ):
        with pytest.raises(InvalidCredentialKeyError):
            call()


# --- keyring backend failures -----------------------------------------------------------------


class BrokenKeyring(MemoryKeyring):
    """A keychain that is present but failing (locked, D-Bus down)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise PasswordSetError("locked")


def test_keyring_failure_raises_never_reports_absent() -> None:
    store = KeyringCredentialStore(BrokenKeyring())
    with pytest.raises(CredentialStoreError):
        store.get("robota.test", "default")
    with pytest.raises(CredentialStoreError):
        store.set("robota.test", "default", "x")
    with pytest.raises(CredentialStoreError):
        store.delete("robota.test", "default")


def test_no_keyring_backend_raises() -> None:
    store = KeyringCredentialStore(fail.Keyring())
    with pytest.raises(CredentialStoreError) as caught:
        store.get("robota.test", "default")
    assert caught.value.error_code == "credential_store"


def test_keyring_delete_failure_of_present_secret_raises() -> None:
    class UndeletableKeyring(MemoryKeyring):
        def delete_password(self, service: str, username: str) -> None:
            raise PasswordDeleteError("access denied")

    backend = UndeletableKeyring()
    backend.entries[("svc", "acct")] = "x"
    with pytest.raises(CredentialStoreError):
        KeyringCredentialStore(backend).delete("svc", "acct")


# --- file backend -----------------------------------------------------------------------------


def test_file_store_is_owner_only_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "home" / ".robota" / "credentials.json"
    FileCredentialStore(path).set("robota.anthropic", "default", "sk")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert json.loads(path.read_text()) == {
        "version": 1,
        "credentials": {"robota.anthropic": {"default": "sk"}},
    }


@pytest.mark.parametrize("content", [b"{not json", b"[]", b'{"credentials": {"s": {"a": 1}}}'])
def test_file_store_corrupt_file_raises(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "credentials.json"
    path.write_bytes(content)
    os.chmod(path, 0o600)
    store = FileCredentialStore(path)
    with pytest.raises(CredentialStoreError):
        store.get("s", "a")
    with pytest.raises(CredentialStoreError):
        store.set("s", "a", "x")
    assert path.read_bytes() == content  # never overwritten by a blind write


def test_file_store_unreadable_path_raises(tmp_path: Path) -> None:
    path = tmp_path / "credentials.json"
    path.mkdir()
    with pytest.raises(CredentialStoreError):
        FileCredentialStore(path).get("s", "a")


def test_file_store_world_readable_file_raises(tmp_path: Path) -> None:
    path = tmp_path / "credentials.json"
    FileCredentialStore(path).set("s", "a", "x")
    os.chmod(path, 0o644)
    with pytest.raises(CredentialStoreError):
        FileCredentialStore(path).get("s", "a")
