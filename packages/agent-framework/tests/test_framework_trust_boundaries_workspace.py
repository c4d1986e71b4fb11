"""Issue #13 rows 5 and 7: user storage outside the repository; trust covers exactly the
trusted root and what is below it, one identity per worktree."""

from __future__ import annotations

from pathlib import Path

import pytest
from robota.core.testing.scripted import ScriptedProvider
from robota.framework.interactive import SessionConfig
from robota.framework.storage_root import StorageRootInsideWorkspaceError, check_storage_root
from robota.framework.trust import (
    TrustedWorkspace,
    TrustStore,
    WorkspaceAuthorityError,
    trusted_workspace,
    workspace_identity,
    workspace_root,
)


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    return root


# -- row 5 ---------------------------------------------------------------------------------------


def test_storage_root_inside_the_repository_is_rejected(tmp_path: Path) -> None:
    root = repo(tmp_path)
    with pytest.raises(StorageRootInsideWorkspaceError) as info:
        check_storage_root(root / ".robota-home", workspace=root / "src")
    assert info.value.workspace == root.resolve()
    with pytest.raises(StorageRootInsideWorkspaceError):
        check_storage_root(root, workspace=root)


def test_storage_root_reaching_the_repository_through_a_symlink_is_rejected(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path)
    link = tmp_path / "home-link"
    link.symlink_to(root / "src", target_is_directory=True)
    with pytest.raises(StorageRootInsideWorkspaceError):
        check_storage_root(link / "robota", workspace=root)


def test_storage_root_outside_is_accepted(tmp_path: Path) -> None:
    root = repo(tmp_path)
    home = tmp_path / "home" / ".robota"
    assert check_storage_root(home, workspace=root / "src") == home.resolve()


def test_home_folder_outside_git_may_hold_the_default_storage_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert check_storage_root(home / ".robota", workspace=home) == (home / ".robota").resolve()


# -- row 7 ---------------------------------------------------------------------------------------


def test_nested_folder_shares_the_worktree_identity(tmp_path: Path) -> None:
    root = repo(tmp_path)
    assert workspace_root(root / "src" / "pkg") == root.resolve()
    # a linked worktree (a .git file) is its own root
    linked = root / "src" / "linked"
    linked.mkdir()
    (linked / ".git").write_text("gitdir: ../../.git/worktrees/linked\n")
    assert workspace_root(linked) == linked.resolve()
    outside = tmp_path / "plain"
    outside.mkdir()
    assert workspace_root(outside) == outside.resolve()


def test_trust_is_accepted_only_for_the_root_or_below(tmp_path: Path) -> None:
    root = repo(tmp_path)
    access = TrustedWorkspace.accept(root=root, cwd=root / "src")
    assert access.cwd == (root / "src").resolve()
    assert access.identity == workspace_identity(root)
    other = tmp_path / "elsewhere"
    other.mkdir()
    with pytest.raises(WorkspaceAuthorityError):
        TrustedWorkspace.accept(root=root, cwd=other)
    escape = root / "src" / "escape"
    escape.symlink_to(other, target_is_directory=True)
    with pytest.raises(WorkspaceAuthorityError):  # canonical: the link is followed
        TrustedWorkspace.accept(root=root, cwd=escape)


def test_session_config_refuses_a_grant_that_does_not_cover_its_workspace(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    access = TrustedWorkspace.accept(root=root, cwd=root)
    provider = ScriptedProvider(["hi"])
    with pytest.raises(WorkspaceAuthorityError):
        SessionConfig(provider=provider, model="m", workspace=other, trusted=access)
    ok = SessionConfig(provider=provider, model="m", workspace=root / "src", trusted=access)
    assert ok.trusted is access


def test_remembered_trust_is_per_worktree_root(tmp_path: Path) -> None:
    root = repo(tmp_path)
    store = TrustStore(path=tmp_path / "state" / "trust.json")
    assert trusted_workspace(store, root / "src") is None
    store.set(workspace_root(root / "src" / "pkg"), "trusted")
    access = trusted_workspace(store, root / "src")
    assert access is not None
    assert access.root == root.resolve()
    other = tmp_path / "other"
    other.mkdir()
    assert trusted_workspace(store, other) is None
