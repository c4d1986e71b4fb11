"""Instruction discovery from host-given roots; workspace trust remembered owner-only."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from robota.framework.context import assemble_system_prompt, discover_instructions
from robota.framework.trust import TrustStore, TrustStoreError


def test_discovers_agents_and_claude_files_in_root_order(tmp_path: Path) -> None:
    user_root = tmp_path / "user"
    project = tmp_path / "project"
    user_root.mkdir()
    project.mkdir()
    (user_root / "AGENTS.md").write_text("Be terse.")
    (project / "AGENTS.md").write_text("Use tabs.")
    (project / "CLAUDE.md").write_text("Run tests with make.")
    files = discover_instructions([user_root, project])
    assert [f.text for f in files] == ["Be terse.", "Use tabs.", "Run tests with make."]
    prompt = assemble_system_prompt("You are a coding agent.", files)
    assert prompt is not None
    assert prompt.startswith("You are a coding agent.")
    assert prompt.index("Use tabs.") < prompt.index("Run tests with make.")


def test_no_roots_means_no_discovery(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("x")
    assert discover_instructions([]) == []
    assert assemble_system_prompt(None, []) is None


def test_a_file_reached_twice_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("once")
    (tmp_path / "CLAUDE.md").symlink_to(tmp_path / "AGENTS.md")
    assert [f.text for f in discover_instructions([tmp_path, tmp_path])] == ["once"]


def test_large_file_is_cut_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("x" * 70_000)
    files = discover_instructions([tmp_path])
    assert files[0].truncated
    prompt = assemble_system_prompt(None, files)
    assert prompt is not None
    assert "[truncated at 65536 bytes]" in prompt


def test_trust_is_remembered_owner_only(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    store = TrustStore(path=tmp_path / "state" / "trust.json")
    assert store.get(workspace) is None
    store.set(workspace, "trusted")
    assert store.get(workspace) == "trusted"
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700


def test_recreated_directory_does_not_inherit_trust(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    keep = tmp_path / "keep"
    keep.mkdir()  # holds an inode so the recreated directory cannot reuse it
    store = TrustStore(path=tmp_path / "trust.json")
    store.set(workspace, "trusted")
    workspace.rename(tmp_path / "old")
    workspace.mkdir()
    assert store.get(workspace) is None


def test_corrupt_trust_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    path.write_text("{")
    with pytest.raises(TrustStoreError):
        TrustStore(path=path).get(tmp_path)
