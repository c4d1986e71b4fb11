"""The trust store verifies an existing trust file and folder before use (issue #12).

A trust grant read from a file others can write is not the operator's answer, so a
pre-planted ``trust.json`` — (a) wide (0644/0666), (b) a symbolic link to a victim, (c) another
account's, (d) a directory or FIFO — is refused with :class:`UnsafeTrustFileError` naming the
path and the fix, never read as "no answers" and never written through.
"""

from __future__ import annotations

import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from robota.core.host.errors import InsecurePermissionsError, UnsafeStoreEntryError
from robota.framework.trust import TrustStore, TrustStoreError, UnsafeTrustFileError

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown (run as root)"
)

FOREIGN = 12345


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("blocked (a FIFO was opened?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    target = folder / "victim.json"
    target.write_text("{}")
    os.chmod(target, 0o644)
    return target


def test_a_clean_trust_file_works(home: Path, workspace: Path) -> None:
    store = TrustStore(path=home / "trust.json")
    assert store.get(workspace) is None
    store.set(workspace, "trusted")
    assert TrustStore(path=home / "trust.json").get(workspace) == "trusted"
    assert _mode(home / "trust.json") == 0o600


@pytest.mark.parametrize("mode", [0o644, 0o666])
def test_a_wide_trust_file_is_refused_naming_the_fix(
    home: Path, workspace: Path, mode: int
) -> None:
    path = home / "trust.json"
    TrustStore(path=path).set(workspace, "trusted")
    os.chmod(path, mode)
    before = path.read_bytes()
    for act in (
        lambda: TrustStore(path=path).get(workspace),
        lambda: TrustStore(path=path).set(workspace, "restricted"),
    ):
        with pytest.raises(UnsafeTrustFileError) as caught:
            act()
        assert caught.value.path == str(path)
        assert caught.value.fix == f"chmod 600 {path}"
        assert f"chmod 600 {path}" in str(caught.value)
        assert isinstance(caught.value.__cause__, InsecurePermissionsError)
        assert isinstance(caught.value, TrustStoreError)
    assert path.read_bytes() == before
    assert _mode(path) == mode


def test_a_trust_file_symlink_is_refused_and_the_victim_untouched(
    home: Path, workspace: Path, victim: Path
) -> None:
    path = home / "trust.json"
    path.symlink_to(victim)
    for act in (
        lambda: TrustStore(path=path).get(workspace),
        lambda: TrustStore(path=path).set(workspace, "trusted"),
    ):
        with pytest.raises(UnsafeTrustFileError) as caught:
            act()
        assert caught.value.fix == f"remove the symlink (rm {path})"
        assert isinstance(caught.value.__cause__, UnsafeStoreEntryError)
    assert path.is_symlink()
    assert victim.read_text() == "{}"
    assert _mode(victim) == 0o644


@needs_root
def test_a_foreign_trust_file_is_refused(home: Path, workspace: Path) -> None:
    path = home / "trust.json"
    TrustStore(path=path).set(workspace, "trusted")
    os.chown(path, FOREIGN, FOREIGN)
    with pytest.raises(UnsafeTrustFileError) as caught:
        TrustStore(path=path).get(workspace)
    cause = caught.value.__cause__
    assert isinstance(cause, InsecurePermissionsError)
    assert cause.uid == FOREIGN


@pytest.mark.parametrize("kind", ["directory", "FIFO"])
def test_a_directory_or_fifo_at_the_trust_path_is_refused(
    home: Path, workspace: Path, kind: str
) -> None:
    path = home / "trust.json"
    if kind == "directory":
        path.mkdir(mode=0o700)
    else:
        os.mkfifo(path, 0o600)
    with pytest.raises(UnsafeTrustFileError) as caught:
        TrustStore(path=path).get(workspace)
    cause = caught.value.__cause__
    assert isinstance(cause, UnsafeStoreEntryError)
    assert cause.found == kind


@pytest.mark.parametrize("mode", [0o755, 0o777])
def test_a_wide_trust_folder_is_refused_on_write(
    tmp_path: Path, workspace: Path, mode: int
) -> None:
    folder = tmp_path / "home"
    folder.mkdir()
    os.chmod(folder, mode)
    with pytest.raises(UnsafeTrustFileError) as caught:
        TrustStore(path=folder / "trust.json").set(workspace, "trusted")
    assert caught.value.fix == f"chmod 700 {folder}"
    assert list(folder.iterdir()) == []


def test_a_symlinked_trust_folder_is_refused_on_write(tmp_path: Path, workspace: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "home").symlink_to(real)
    with pytest.raises(UnsafeTrustFileError):
        TrustStore(path=tmp_path / "home" / "trust.json").set(workspace, "trusted")
    assert list(real.iterdir()) == []


def test_a_corrupt_owner_only_trust_file_is_a_plain_trust_store_error(
    home: Path, workspace: Path
) -> None:
    path = home / "trust.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, b"{")
    os.close(fd)
    with pytest.raises(TrustStoreError) as caught:
        TrustStore(path=path).get(workspace)
    assert not isinstance(caught.value, UnsafeTrustFileError)
    assert "invalid JSON" in str(caught.value)


# --- outsider red team: hard links, a folder swapped after the check, parents ---------------


def test_hard_linked_trust_file_is_refused(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    ws = tmp_path / "ws"
    ws.mkdir()
    other = TrustStore(path=tmp_path / "other" / "trust.json")
    other.set(ws, "trusted")
    store = TrustStore(path=tmp_path / "store" / "trust.json")
    store.set(ws, "restricted")
    store.path.unlink()
    os.link(other.path, store.path)
    with pytest.raises(UnsafeTrustFileError) as caught:
        store.get(ws)
    assert isinstance(caught.value.__cause__, UnsafeStoreEntryError)
    assert caught.value.__cause__.problem == "hard_link"
    assert caught.value.path == str(store.path)


def test_trust_folder_swapped_for_a_link_is_refused(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    ws = tmp_path / "ws"
    ws.mkdir()
    store = TrustStore(path=tmp_path / "store" / "trust.json")
    store.set(ws, "restricted")
    victim = TrustStore(path=tmp_path / "victim" / "trust.json")
    victim.set(ws, "trusted")
    before = victim.path.read_bytes()
    os.rename(tmp_path / "store", tmp_path / "moved")
    os.symlink(tmp_path / "victim", tmp_path / "store")
    for use in (lambda: store.get(ws), lambda: store.set(ws, "restricted")):
        with pytest.raises(UnsafeTrustFileError):
            use()
    assert victim.path.read_bytes() == before


def test_trust_folder_under_a_writable_parent_is_refused(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    ws = tmp_path / "ws"
    ws.mkdir()
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(UnsafeTrustFileError) as caught:
        TrustStore(path=shared / "trust" / "trust.json").set(ws, "trusted")
    assert caught.value.path == str(shared)
    assert isinstance(caught.value.__cause__, InsecurePermissionsError)
