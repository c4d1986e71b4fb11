"""Owner-only store (seed 000, "Owner-Only Store"): final modes from creation, verified."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from robota.core.host.errors import InsecurePermissionsError, ModeNotEnforcedError
from robota.core.host.owner_only import (
    OwnerOnlyGuarantee,
    ensure_private_dir,
    owner_only_guarantee,
    read_private_file,
    write_private_file,
)

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def test_guarantee_on_posix_is_posix_modes() -> None:
    assert owner_only_guarantee() is OwnerOnlyGuarantee.POSIX_MODES


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077, 0o777])
def test_new_dirs_and_files_get_final_modes_under_any_umask(
    tmp_path: Path, umask: None, mask: int
) -> None:
    os.umask(mask)
    store = tmp_path / "home" / ".robota" / "logs"
    assert ensure_private_dir(store) is OwnerOnlyGuarantee.POSIX_MODES
    assert _mode(store) == 0o700
    assert _mode(store.parent) == 0o700
    write_private_file(store / "run.jsonl", b"{}\n")
    assert _mode(store / "run.jsonl") == 0o600
    assert (store / "run.jsonl").read_bytes() == b"{}\n"


def test_existing_wide_directory_is_reported_not_adopted(tmp_path: Path) -> None:
    wide = tmp_path / "logs"
    wide.mkdir()
    os.chmod(wide, 0o777)
    with pytest.raises(InsecurePermissionsError) as caught:
        ensure_private_dir(wide)
    assert caught.value.mode == 0o777
    assert caught.value.error_code == "insecure_permissions"
    assert _mode(wide) == 0o777


def test_tighten_clears_group_and_other_bits_only(tmp_path: Path) -> None:
    wide = tmp_path / "logs"
    wide.mkdir()
    os.chmod(wide, 0o755)
    ensure_private_dir(wide, tighten=True)
    assert _mode(wide) == 0o700
    narrow = tmp_path / "narrow"
    narrow.mkdir()
    os.chmod(narrow, 0o500)
    ensure_private_dir(narrow, tighten=True)
    assert _mode(narrow) == 0o500  # never widened


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_directory_owned_by_another_account_is_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir(mode=0o700)
    os.chown(foreign, 4242, -1)
    with pytest.raises(InsecurePermissionsError) as caught:
        ensure_private_dir(foreign)
    assert caught.value.uid == 4242


def test_rewrite_replaces_a_wide_legacy_file_with_an_owner_only_one(tmp_path: Path) -> None:
    legacy = tmp_path / "settings.json"
    legacy.write_text("old")
    os.chmod(legacy, 0o644)
    write_private_file(legacy, b"new")
    assert _mode(legacy) == 0o600
    assert legacy.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_failed_write_leaves_old_content_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "record.json"
    write_private_file(target, b"old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        write_private_file(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json"]


def test_filesystem_ignoring_chmod_is_caught(
    tmp_path: Path, umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.umask(0o777)  # creation yields 000; the repairing fchmod is then silently ignored

    def ignored_fchmod(fd: int, mode: int) -> None:
        return None

    monkeypatch.setattr(os, "fchmod", ignored_fchmod)
    with pytest.raises(ModeNotEnforcedError):
        write_private_file(tmp_path / "token", b"secret")
    assert list(tmp_path.iterdir()) == []


def test_read_refuses_a_file_others_can_read(tmp_path: Path) -> None:
    target = tmp_path / "token"
    write_private_file(target, b"secret")
    assert read_private_file(target) == b"secret"
    os.chmod(target, 0o640)
    with pytest.raises(InsecurePermissionsError):
        read_private_file(target)
    assert read_private_file(target, require_private=False) == b"secret"


def test_read_refuses_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write_private_file(real, b"secret")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(OSError, match="Too many levels of symbolic links"):  # O_NOFOLLOW
        read_private_file(tmp_path / "link")
