"""Owner-only store, second half (issue #12): what already exists is verified, never adopted.

Each entry a store finds is pre-planted here in every shape an attacker or an older version
could leave: (a) wide modes, (b) a symbolic link to a victim, (c) another account's entry,
(d) the wrong kind of entry (a directory where a file belongs, a FIFO). Each is refused with
its typed error naming the path and the fix; the victim is left exactly as it was; a clean
path still works.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest
from robota.core.host.credentials import FileCredentialStore
from robota.core.host.errors import (
    CredentialStoreError,
    InsecurePermissionsError,
    OwnerOnlyError,
    UnsafeStoreEntryError,
)
from robota.core.host.owner_only import (
    create_private_file,
    ensure_private_dir,
    open_private_file,
    read_private_file,
    verify_private_dir,
    verify_private_file,
    write_private_file,
)

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown (run as root)"
)

FOREIGN = 12345


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """A FIFO opened by mistake would block forever; fail the test instead."""

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
def victim(tmp_path: Path) -> Path:
    """A file outside the store that a planted link points at."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    target = folder / "victim.txt"
    target.write_bytes(b"precious")
    os.chmod(target, 0o644)
    return target


@pytest.fixture
def store(tmp_path: Path) -> Path:
    folder = tmp_path / "store"
    ensure_private_dir(folder)
    return folder


def _victim_untouched(victim: Path) -> None:
    assert victim.read_bytes() == b"precious"
    assert _mode(victim) == 0o644


# --- verify_private_file ------------------------------------------------------------------


def test_a_clean_file_passes(store: Path) -> None:
    write_private_file(store / "record.json", b"{}")
    info = verify_private_file(store / "record.json")
    assert stat.S_ISREG(info.st_mode)


def test_a_missing_file_is_file_not_found(store: Path) -> None:
    with pytest.raises(FileNotFoundError):
        verify_private_file(store / "absent")


@pytest.mark.parametrize("mode", [0o644, 0o666, 0o640, 0o604, 0o777])
def test_a_wide_file_is_refused_with_the_chmod_to_run(store: Path, mode: int) -> None:
    path = store / "sessions.db"
    write_private_file(path, b"data")
    os.chmod(path, mode)
    with pytest.raises(InsecurePermissionsError) as caught:
        verify_private_file(path)
    assert caught.value.path == str(path)
    assert caught.value.mode == mode
    assert caught.value.fix == f"chmod 600 {path}"
    assert f"chmod 600 {path}" in str(caught.value)
    assert caught.value.error_code == "insecure_permissions"
    assert _mode(path) == mode  # reported, never tightened


def test_a_symlink_is_refused_and_its_target_untouched(store: Path, victim: Path) -> None:
    link = store / "trust.json"
    link.symlink_to(victim)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        verify_private_file(link)
    error = caught.value
    assert error.problem == "symlink"
    assert error.found == "symbolic link"
    assert error.path == str(link)
    assert error.fix == f"remove the symlink (rm {link})"
    assert error.error_code == "unsafe_store_entry"
    assert isinstance(error, OSError)
    assert error.errno == errno.ELOOP
    assert isinstance(error, OwnerOnlyError)
    _victim_untouched(victim)


def test_a_symlink_to_an_owner_only_file_is_still_refused(store: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    write_private_file(real, b"x")
    (store / "link").symlink_to(real)
    with pytest.raises(UnsafeStoreEntryError):
        verify_private_file(store / "link")


@needs_root
def test_a_foreign_file_is_refused(store: Path) -> None:
    path = store / "credentials.json"
    write_private_file(path, b"{}")
    os.chown(path, FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError) as caught:
        verify_private_file(path)
    assert caught.value.uid == FOREIGN
    assert caught.value.fix == f"remove it, or take it over (chown {os.geteuid()} {path})"
    assert os.lstat(path).st_uid == FOREIGN


def test_a_directory_where_a_file_belongs_is_refused(store: Path) -> None:
    (store / "sessions.db").mkdir(mode=0o700)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        verify_private_file(store / "sessions.db")
    assert caught.value.problem == "wrong_type"
    assert caught.value.found == "directory"
    assert caught.value.errno == errno.EISDIR
    assert caught.value.fix.startswith("move it out of the way (mv ")


def test_a_fifo_where_a_file_belongs_is_refused(store: Path) -> None:
    os.mkfifo(store / "run.jsonl", 0o600)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        verify_private_file(store / "run.jsonl")
    assert caught.value.found == "FIFO"
    assert caught.value.errno == errno.EINVAL


def test_a_path_with_spaces_gets_a_quoted_fix(store: Path) -> None:
    path = store / "my file"
    write_private_file(path, b"")
    os.chmod(path, 0o644)
    with pytest.raises(InsecurePermissionsError) as caught:
        verify_private_file(path)
    assert caught.value.fix == f"chmod 600 '{path}'"


# --- verify_private_dir / ensure_private_dir ----------------------------------------------


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o777])
def test_a_wide_directory_is_refused_with_the_chmod_to_run(tmp_path: Path, mode: int) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    os.chmod(logs, mode)
    for check in (verify_private_dir, ensure_private_dir):
        with pytest.raises(InsecurePermissionsError) as caught:
            check(logs)
        assert caught.value.fix == f"chmod 700 {logs}"
    assert _mode(logs) == mode


def test_ensure_refuses_a_symlink_to_a_private_directory(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "logs"
    link.symlink_to(real)
    for check in (verify_private_dir, ensure_private_dir):
        with pytest.raises(UnsafeStoreEntryError) as caught:
            check(link)
        assert caught.value.problem == "symlink"
        assert caught.value.fix == f"remove the symlink (rm {link})"
    assert link.is_symlink()


def test_tighten_never_chmods_through_a_symlink(tmp_path: Path) -> None:
    victim_dir = tmp_path / "shared"
    victim_dir.mkdir()
    os.chmod(victim_dir, 0o755)
    link = tmp_path / "logs"
    link.symlink_to(victim_dir)
    with pytest.raises(UnsafeStoreEntryError):
        ensure_private_dir(link, tighten=True)
    assert _mode(victim_dir) == 0o755


def test_a_dangling_symlink_is_refused_and_nothing_created_at_its_target(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "planted"
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "background"
    link.symlink_to(target)
    with pytest.raises(UnsafeStoreEntryError):
        ensure_private_dir(link)
    assert not target.exists()


def test_a_symlink_inside_a_missing_chain_is_refused(tmp_path: Path) -> None:
    (tmp_path / "victim").mkdir(mode=0o700)
    (tmp_path / "home").symlink_to(tmp_path / "victim")
    with pytest.raises(UnsafeStoreEntryError):
        ensure_private_dir(tmp_path / "home")
    assert list((tmp_path / "victim").iterdir()) == []


def test_a_file_or_fifo_where_a_directory_belongs_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"")
    os.mkfifo(tmp_path / "fifo", 0o600)
    for name, found in (("file", "regular file"), ("fifo", "FIFO")):
        with pytest.raises(UnsafeStoreEntryError) as caught:
            ensure_private_dir(tmp_path / name)
        assert caught.value.found == found
        assert caught.value.errno == errno.ENOTDIR
        assert isinstance(caught.value, OSError)


@needs_root
def test_a_foreign_directory_is_refused_even_when_tightening(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o700)
    os.chown(logs, FOREIGN, FOREIGN)
    for tighten in (False, True):
        with pytest.raises(InsecurePermissionsError) as caught:
            ensure_private_dir(logs, tighten=tighten)
        assert caught.value.uid == FOREIGN
    assert _mode(logs) == 0o700


def test_a_clean_directory_still_works(tmp_path: Path) -> None:
    logs = tmp_path / "a" / "b"
    ensure_private_dir(logs)
    ensure_private_dir(logs)  # idempotent
    assert stat.S_ISDIR(verify_private_dir(logs).st_mode)
    assert _mode(logs) == 0o700


# --- open_private_file / read_private_file / create_private_file --------------------------


def test_open_for_append_creates_then_appends(store: Path) -> None:
    path = store / "ses_1.jsonl"
    for line in (b"one\n", b"two\n"):
        fd = open_private_file(path, append=True, create=True)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    assert path.read_bytes() == b"one\ntwo\n"
    assert _mode(path) == 0o600
    fd = open_private_file(path)
    try:
        assert os.read(fd, 100) == b"one\ntwo\n"
        assert os.get_blocking(fd)  # the descriptor handed back blocks normally
    finally:
        os.close(fd)


def test_open_without_create_needs_the_file(store: Path) -> None:
    with pytest.raises(FileNotFoundError):
        open_private_file(store / "absent", append=True)
    assert not (store / "absent").exists()


OpenCall = Callable[[Path], object]

OPENERS: dict[str, OpenCall] = {
    "append": lambda path: os.close(open_private_file(path, append=True, create=True)),
    "read": lambda path: os.close(open_private_file(path)),
    "read_private_file": read_private_file,
}


@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
def test_open_refuses_a_symlink_and_leaves_the_victim(
    store: Path, victim: Path, opener: OpenCall
) -> None:
    link = store / "ses_1.jsonl"
    link.symlink_to(victim)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        opener(link)
    assert caught.value.problem == "symlink"
    _victim_untouched(victim)
    assert link.is_symlink()


@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
def test_open_refuses_a_dangling_symlink_without_creating_its_target(
    store: Path, tmp_path: Path, opener: OpenCall
) -> None:
    target = tmp_path / "created-through-link"
    (store / "ses_1.jsonl").symlink_to(target)
    with pytest.raises(UnsafeStoreEntryError):
        opener(store / "ses_1.jsonl")
    assert not target.exists()


@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
@pytest.mark.parametrize("mode", [0o644, 0o666])
def test_open_refuses_a_wide_file(store: Path, opener: OpenCall, mode: int) -> None:
    path = store / "ses_1.jsonl"
    path.write_bytes(b"old\n")
    os.chmod(path, mode)
    with pytest.raises(InsecurePermissionsError) as caught:
        opener(path)
    assert caught.value.fix == f"chmod 600 {path}"
    assert path.read_bytes() == b"old\n"
    assert _mode(path) == mode


@needs_root
@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
def test_open_refuses_a_foreign_file(store: Path, opener: OpenCall) -> None:
    path = store / "ses_1.jsonl"
    write_private_file(path, b"old\n")
    os.chown(path, FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError):
        opener(path)
    assert path.read_bytes() == b"old\n"


@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
def test_open_refuses_a_fifo_without_blocking(store: Path, opener: OpenCall) -> None:
    os.mkfifo(store / "ses_1.jsonl", 0o600)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        opener(store / "ses_1.jsonl")
    assert caught.value.found == "FIFO"


@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
def test_open_refuses_a_directory(store: Path, opener: OpenCall) -> None:
    (store / "ses_1.jsonl").mkdir(mode=0o700)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        opener(store / "ses_1.jsonl")
    assert caught.value.found == "directory"


def test_read_without_the_privacy_check_still_refuses_links_and_fifos(
    store: Path, victim: Path
) -> None:
    (store / "link").symlink_to(victim)
    os.mkfifo(store / "fifo", 0o600)
    for name in ("link", "fifo"):
        with pytest.raises(UnsafeStoreEntryError):
            read_private_file(store / name, require_private=False)
    _victim_untouched(victim)


def test_create_never_opens_a_planted_link(store: Path, victim: Path) -> None:
    (store / "shell_1.log").symlink_to(victim)
    with pytest.raises(FileExistsError):
        create_private_file(store / "shell_1.log")
    _victim_untouched(victim)


def test_write_replaces_a_planted_link_instead_of_writing_through_it(
    store: Path, victim: Path
) -> None:
    (store / "settings.json").symlink_to(victim)
    write_private_file(store / "settings.json", b"{}")
    assert not (store / "settings.json").is_symlink()
    assert verify_private_file(store / "settings.json")
    _victim_untouched(victim)


# --- the credential file (a store built on this module) -----------------------------------


def test_credentials_refuse_a_world_readable_file_naming_the_fix(store: Path) -> None:
    path = store / "credentials.json"
    FileCredentialStore(path).set("svc", "me", "s3cret")
    os.chmod(path, 0o666)
    with pytest.raises(CredentialStoreError) as caught:
        FileCredentialStore(path).get("svc", "me")
    assert f"chmod 600 {path}" in str(caught.value)
    assert isinstance(caught.value.__cause__, InsecurePermissionsError)


def test_credentials_refuse_a_symlink_and_never_write_through_it(store: Path, victim: Path) -> None:
    path = store / "credentials.json"
    path.symlink_to(victim)
    credentials = FileCredentialStore(path)
    with pytest.raises(CredentialStoreError) as caught:
        credentials.get("svc", "me")
    assert isinstance(caught.value.__cause__, UnsafeStoreEntryError)
    with pytest.raises(CredentialStoreError):
        credentials.set("svc", "me", "s3cret")
    _victim_untouched(victim)


@needs_root
def test_credentials_refuse_a_foreign_file(store: Path) -> None:
    path = store / "credentials.json"
    FileCredentialStore(path).set("svc", "me", "s3cret")
    os.chown(path, FOREIGN, FOREIGN)
    with pytest.raises(CredentialStoreError) as caught:
        FileCredentialStore(path).get("svc", "me")
    assert isinstance(caught.value.__cause__, InsecurePermissionsError)


def test_credentials_refuse_a_fifo_or_a_directory(store: Path) -> None:
    os.mkfifo(store / "fifo.json", 0o600)
    (store / "dir.json").mkdir(mode=0o700)
    for name in ("fifo.json", "dir.json"):
        with pytest.raises(CredentialStoreError) as caught:
            FileCredentialStore(store / name).get("svc", "me")
        assert isinstance(caught.value.__cause__, UnsafeStoreEntryError)


def test_credentials_refuse_a_wide_folder_on_write(tmp_path: Path) -> None:
    folder = tmp_path / "home"
    folder.mkdir()
    os.chmod(folder, 0o777)
    with pytest.raises(CredentialStoreError) as caught:
        FileCredentialStore(folder / "credentials.json").set("svc", "me", "s3cret")
    assert f"chmod 700 {folder}" in str(caught.value)
    assert list(folder.iterdir()) == []


def test_credentials_in_a_clean_store_still_work(store: Path) -> None:
    credentials = FileCredentialStore(store / "credentials.json")
    credentials.set("svc", "me", "s3cret")
    assert credentials.get("svc", "me") == "s3cret"
    assert _mode(store / "credentials.json") == 0o600
