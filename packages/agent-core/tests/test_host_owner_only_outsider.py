"""Owner-only store against the outsider red team (hard links, folder swaps, parents).

* A store file with more than one hard link is refused (``problem == "hard_link"``), on
  ``lstat`` and on the descriptor actually opened; a write replaces it without touching the
  other name.
* Entries reached through :func:`private_dir`'s descriptor stay in the verified folder when its
  path is later swapped for a link; opening a folder that is a link is refused.
* Every existing ancestor of a store folder must be root's or ours and not writable by others
  unless sticky; a link among the parents is resolved once.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from robota.core.host.errors import InsecurePermissionsError, UnsafeStoreEntryError
from robota.core.host.owner_only import (
    create_private_file,
    ensure_private_dir,
    open_private_dir,
    open_private_file,
    private_dir,
    read_private_file,
    verify_private_file,
    write_private_file,
)

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown (run as root)"
)

FOREIGN = 12345


@pytest.fixture
def base(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    return tmp_path


def _victim(base: Path) -> Path:
    victim = base / "victim.txt"
    victim.write_bytes(b"VICTIM\n")
    victim.chmod(0o600)
    return victim


# --- hard links -------------------------------------------------------------------------------


def _use(path: Path, use: str) -> None:
    if use == "verify":
        verify_private_file(path)
    elif use == "open":
        os.close(open_private_file(path))
    elif use == "append":
        os.close(open_private_file(path, append=True, create=True))
    elif use == "read":
        read_private_file(path)
    else:
        read_private_file(path, require_private=False)


@pytest.mark.parametrize("use", ["verify", "open", "append", "read", "read_any"])
def test_hard_linked_store_file_is_refused(base: Path, use: str) -> None:
    store = base / "store"
    ensure_private_dir(store)
    victim = _victim(base)
    path = store / "s1.jsonl"
    os.link(victim, path)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        _use(path, use)
    error = caught.value
    assert error.problem == "hard_link"
    assert error.path == str(path)
    assert str(path) in error.fix
    assert victim.read_bytes() == b"VICTIM\n"


def test_hard_link_made_after_the_lstat_is_caught_on_the_descriptor(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = base / "store"
    ensure_private_dir(store)
    victim = _victim(base)
    path = store / "trust.json"
    write_private_file(path, b"{}")
    real_open = os.open

    def racing_open(name: str, flags: int, *args: object, **kwargs: object) -> int:
        if os.fspath(name) in (str(path), path.name) and not flags & os.O_CREAT:
            os.unlink(path)
            os.link(victim, path)  # swapped between the lstat and the open
        return real_open(name, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", racing_open)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        read_private_file(path)
    assert caught.value.problem == "hard_link"


def test_write_replaces_a_hard_link_without_touching_the_other_name(base: Path) -> None:
    store = base / "store"
    ensure_private_dir(store)
    victim = _victim(base)
    os.link(victim, store / "token.json")
    write_private_file(store / "token.json", b"{}")
    assert victim.read_bytes() == b"VICTIM\n"
    assert os.lstat(store / "token.json").st_nlink == 1
    assert read_private_file(store / "token.json") == b"{}"


# --- folder swapped after the check -----------------------------------------------------------


def test_entries_stay_in_the_verified_folder_after_a_swap(base: Path) -> None:
    store = base / "store"
    victims = base / "victims"
    victims.mkdir(mode=0o700)
    with private_dir(store, create=True) as folder:
        write_private_file(store / "a.json", b"mine", dir_fd=folder)
        os.rename(store, base / "moved")
        os.symlink(victims, store)
        os.close(open_private_file(store / "log.jsonl", append=True, create=True, dir_fd=folder))
        os.close(create_private_file(store / "out.log", dir_fd=folder))
        write_private_file(store / "a.json", b"again", dir_fd=folder)
        assert read_private_file(store / "a.json", dir_fd=folder) == b"again"
    assert os.listdir(victims) == []
    assert sorted(os.listdir(base / "moved")) == ["a.json", "log.jsonl", "out.log"]


def test_a_folder_that_is_a_link_is_refused(base: Path) -> None:
    victims = base / "victims"
    victims.mkdir(mode=0o700)
    os.symlink(victims, base / "store")
    with pytest.raises(UnsafeStoreEntryError) as caught:
        open_private_dir(base / "store")
    assert caught.value.problem == "symlink"
    with pytest.raises(UnsafeStoreEntryError), private_dir(base / "store", create=True):
        pass
    assert os.listdir(victims) == []


def test_open_private_dir_relative_creates_owner_only(base: Path) -> None:
    with private_dir(base / "store", create=True) as root:
        descriptor = open_private_dir(base / "store" / "000001", dir_fd=root, create=True)
        os.close(descriptor)
    assert stat.S_IMODE(os.lstat(base / "store" / "000001").st_mode) == 0o700
    (base / "store" / "wide").mkdir(mode=0o755)
    (base / "store" / "wide").chmod(0o755)
    with pytest.raises(InsecurePermissionsError):
        open_private_dir(base / "store" / "wide")


# --- parents ----------------------------------------------------------------------------------


def test_an_ancestor_others_can_write_is_refused(base: Path) -> None:
    shared = base / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    ensure = ensure_private_dir
    with pytest.raises(InsecurePermissionsError) as caught:
        ensure(shared / "store" / "logs")
    assert caught.value.path == str(shared)
    assert "chmod go-w" in caught.value.fix
    assert not (shared / "store").exists()
    (shared / "existing").mkdir(mode=0o700)
    with pytest.raises(InsecurePermissionsError):
        ensure(shared / "existing")


def test_a_sticky_shared_ancestor_is_accepted(base: Path) -> None:
    shared = base / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    ensure_private_dir(shared / "store")
    assert stat.S_IMODE(os.lstat(shared / "store").st_mode) == 0o700


@needs_root
def test_an_ancestor_of_another_account_is_refused(base: Path) -> None:
    foreign = base / "foreign"
    foreign.mkdir(mode=0o755)
    os.chown(foreign, FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError) as caught:
        ensure_private_dir(foreign / "store")
    assert caught.value.path == str(foreign)
    assert caught.value.uid == FOREIGN
    assert not (foreign / "store").exists()


def test_a_link_among_the_parents_is_resolved_once(base: Path) -> None:
    real = base / "real"
    real.mkdir(mode=0o700)
    os.symlink(real, base / "hop")
    ensure_private_dir(base / "hop" / "store" / "logs")
    assert (real / "store" / "logs").is_dir()
    wide = base / "wide"
    wide.mkdir()
    wide.chmod(0o777)
    os.symlink(wide, base / "hop2")
    with pytest.raises(InsecurePermissionsError) as caught:
        ensure_private_dir(base / "hop2" / "store")
    assert caught.value.path == str(wide)  # judged where the link leads


def test_pytest_tmp_and_home_layouts_pass(tmp_path: Path) -> None:
    ensure_private_dir(tmp_path / "robota" / "sessions")


# --- the credential file ----------------------------------------------------------------------


def test_credential_file_hard_link_and_folder_swap_are_refused(base: Path) -> None:
    from robota.core.host.credentials import FileCredentialStore
    from robota.core.host.errors import CredentialStoreError

    victim = FileCredentialStore(base / "victim" / "credentials.json")
    victim.set("svc", "acct", "SECRET")
    store = FileCredentialStore(base / "store" / "credentials.json")
    store.set("svc", "acct", "mine")
    (base / "store" / "credentials.json").unlink()
    os.link(base / "victim" / "credentials.json", base / "store" / "credentials.json")
    with pytest.raises(CredentialStoreError) as caught:
        store.get("svc", "acct")
    assert isinstance(caught.value.__cause__, UnsafeStoreEntryError)
    assert caught.value.__cause__.problem == "hard_link"
    (base / "store" / "credentials.json").unlink()
    store.set("svc", "acct", "mine")
    os.rename(base / "store", base / "moved")
    os.symlink(base / "victim", base / "store")
    with pytest.raises(CredentialStoreError):
        store.get("svc", "acct")
    with pytest.raises(CredentialStoreError):
        store.set("svc", "acct", "overwrite")
    assert victim.get("svc", "acct") == "SECRET"
